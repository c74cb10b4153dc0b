import GRDB

extension ModerationStore {
    /// Applies `user.deleted`: reports the user made, reports about their content (which is
    /// gone with them) and its moderation state, and blocks either way go.
    static func erase(userID: String, in db: Database) throws {
        try db.execute(
            sql:
                "DELETE FROM moderation_target WHERE target_id IN (SELECT target_id FROM report WHERE target_owner_id = ?1)",
            arguments: [userID])
        try db.execute(sql: "DELETE FROM report WHERE reporter_id = ?1 OR target_owner_id = ?1", arguments: [userID])
        try db.execute(sql: "DELETE FROM block WHERE blocker_id = ?1 OR blocked_id = ?1", arguments: [userID])
    }
}
