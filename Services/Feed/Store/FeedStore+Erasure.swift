import GRDB

extension FeedStore {
    /// Applies `user.deleted`: the user's posts (and the votes on them), their votes on other
    /// posts (taken back out of those posts' counts) and their blocks go.
    static func erase(userID: String, in db: Database) throws {
        try db.execute(
            sql:
                "UPDATE post SET upvotes = upvotes - (SELECT COUNT(*) FROM vote WHERE vote.post_id = post.id AND vote.user_id = ?1 AND value > 0), downvotes = downvotes - (SELECT COUNT(*) FROM vote WHERE vote.post_id = post.id AND vote.user_id = ?1 AND value < 0) WHERE id IN (SELECT post_id FROM vote WHERE user_id = ?1)",
            arguments: [userID])
        try db.execute(sql: "DELETE FROM vote WHERE user_id = ?1", arguments: [userID])
        try db.execute(sql: "DELETE FROM post WHERE author_id = ?1", arguments: [userID])
        try db.execute(sql: "DELETE FROM block WHERE blocker_id = ?1 OR blocked_id = ?1", arguments: [userID])
    }
}
