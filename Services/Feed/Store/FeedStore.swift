import Contracts
import Foundation
import GRDB
import ServiceKit

/// The feed service's database: posts and votes, SkateHubba's challenges (and, through the
/// kit, a copy of blocks and the challenges' deadline jobs).
struct FeedStore: Sendable {
    let database: DatabasePool
    let outbox: Outbox
    let jobs: JobQueue

    /// Stores a post and, in the same transaction, counts it and tells media that its photo is
    /// now public.
    /// A photo is posted at most once: when its author already posted it (a retry whose first
    /// answer was lost, say), the existing post is returned and nothing is written.
    func create(_ record: PostRecord) async throws -> (post: PostRecord, created: Bool) {
        try await database.write { [outbox] db in
            if let existing = try PostRecord.filter(PostRecord.Columns.mediaId == record.mediaId).fetchOne(db) {
                guard existing.authorId == record.authorId else { throw ServiceError.notFound("Media") }
                return (existing, false)
            }
            try record.insert(db)
            try Self.adjustCounts(of: record.authorId, posts: 1, outbox: outbox, in: db)
            try outbox.enqueue(
                MediaAttached(
                    mediaId: record.mediaId, ownerId: record.authorId, visibility: .public, referenceType: "post",
                    referenceId: record.id), in: db)
            return (record, true)
        }
    }

    /// A post `viewer` may see: not hidden and its media ready (unless it is theirs), and no
    /// block either way.
    static func visiblePost(id: String, viewer: String, in db: Database) throws -> PostRecord? {
        try PostRecord.fetchOne(
            db,
            sql: """
                SELECT p.* FROM post p WHERE p.id = :id
                AND ((p.hidden_at IS NULL AND p.media_state = 'ready') OR p.author_id = :viewer)
                AND \(BlockMirror.neitherBlocks(":viewer", "p.author_id"))
                """, arguments: ["id": id, "viewer": viewer])
    }

    /// The post as `viewer` sees it, or nil.
    func post(id: String, viewer: String) async throws -> Post? {
        try await database.read { db in
            guard let record = try Self.visiblePost(id: id, viewer: viewer, in: db) else { return nil }
            return record.post(myVote: try Self.myVote(post: id, viewer: viewer, in: db))
        }
    }

    /// Any post, hidden or not, for moderation.
    func summary(id: String) async throws -> PostSummary? {
        try await database.read { db in
            try PostRecord.fetchOne(db, key: id).map {
                PostSummary(id: $0.id, authorId: $0.authorId, hidden: $0.hiddenAt != nil)
            }
        }
    }
}
