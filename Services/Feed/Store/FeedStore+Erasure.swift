import GRDB
import ServiceKit

extension FeedStore {
    /// Applies `user.deleted`: the user's posts (and the votes on them) and their votes on
    /// other posts (taken back out of those posts' counts) go; the kit forgets their blocks.
    static func erase(userID: String, in db: Database) throws {
        try db.execute(
            sql:
                "UPDATE post SET upvotes = upvotes - (SELECT COUNT(*) FROM vote WHERE vote.post_id = post.id AND vote.user_id = ?1 AND value > 0), downvotes = downvotes - (SELECT COUNT(*) FROM vote WHERE vote.post_id = post.id AND vote.user_id = ?1 AND value < 0) WHERE id IN (SELECT post_id FROM vote WHERE user_id = ?1)",
            arguments: [userID])
        try VoteRecord.filter(VoteRecord.Columns.userId == userID).deleteAll(db)
        try PostRecord.filter(PostRecord.Columns.authorId == userID).deleteAll(db)
    }
}
