import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Up and down votes: one per user per post, counted on the post in the same transaction.
extension FeedStore {
    static func myVote(post: String, viewer: String, in db: Database) throws -> VoteValue? {
        VoteValue(weight: try VoteRecord.fetchOne(db, key: ["post_id": post, "user_id": viewer])?.value)
    }

    /// Sets (or with nil removes) `viewer`'s vote and adjusts the post's counts by the
    /// difference, in one transaction: the counts always equal the votes.
    func setVote(_ value: VoteValue?, post id: String, viewer: String, at now: Date) async throws -> Post? {
        try await database.tracedWrite { db in
            guard var record = try Self.visiblePost(id: id, viewer: viewer, in: db), record.hiddenAt == nil,
                record.deletedAt == nil
            else { return nil }
            let old = try Self.myVote(post: id, viewer: viewer, in: db)
            guard old != value else { return try views([record], viewer: viewer, in: db)[0] }
            if let value {
                try VoteRecord(postId: id, userId: viewer, value: value.weight, updatedAt: now).upsert(db)
            } else {
                try VoteRecord.deleteOne(db, key: ["post_id": id, "user_id": viewer])
            }
            let up = (value == .up ? 1 : 0) - (old == .up ? 1 : 0)
            let down = (value == .down ? 1 : 0) - (old == .down ? 1 : 0)
            try db.execute(
                sql: "UPDATE post SET upvotes = upvotes + ?, downvotes = downvotes + ? WHERE id = ?",
                arguments: [up, down, id])
            record.upvotes += up
            record.downvotes += down
            return try views([record], viewer: viewer, in: db)[0]
        }
    }
}
