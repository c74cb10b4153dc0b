import GRDB

extension StreakStore {
    /// Applies `user.deleted`: the user's friend requests, streaks (their friends' streaks
    /// with them end with them), snaps and blocks go.
    static func erase(userID: String, in db: Database) throws {
        try db.execute(
            sql: "DELETE FROM friend_request WHERE from_user_id = ?1 OR to_user_id = ?1", arguments: [userID])
        try db.execute(sql: "DELETE FROM streak WHERE user_a = ?1 OR user_b = ?1", arguments: [userID])
        try db.execute(sql: "DELETE FROM snap WHERE user_id = ?1", arguments: [userID])
        try db.execute(sql: "DELETE FROM block WHERE blocker_id = ?1 OR blocked_id = ?1", arguments: [userID])
    }
}
