import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// The feed service's database: posts, votes, likes and reposts, the follow graph and the
/// following timeline, challenges and spots (and, through the kit, a copy of
/// blocks and the service's jobs).
struct FeedStore: Sendable {
    let database: DatabasePool
    let outbox: Outbox
    let jobs: JobQueue
    /// People and media beside the ids of every list, from the service's own copies.
    let views: Views

    /// What a new post is: the row, its further media, and who wrote it (for the events).
    struct NewPost: Sendable {
        var record: PostRecord
        /// Media after the first, in order.
        var moreMedia: [String] = []
        /// Users named with `@username` in the words.
        var mentioned: [String] = []
        var author: EventActor
        /// What media answered of the post's media: kept in the copy views read, so the post
        /// shows its photos before `media.described` arrives.
        var described: [MediaDescribed] = []
    }

    /// Stores a post and, in the same transaction, counts it, tells media that its photos are
    /// now public, counts it on the post it answers or quotes (telling that post's author), tells
    /// the people it mentions (none who muted its words) and
    /// plans its way into followers' timelines. A photo is posted at most once: when its author
    /// already posted it (a retry whose first answer was lost, say), the existing post is
    /// returned and nothing is written. A post answered or quoted must be one the author may
    /// see and not deleted (404).
    func create(_ new: NewPost) async throws -> (post: PostRecord, created: Bool) {
        try await database.tracedWrite { [outbox, jobs] db in
            for description in new.described { _ = try MediaMirror.apply(description, in: db) }
            var record = new.record
            if let mediaId = record.mediaId,
                let existing = try PostRecord.filter(PostRecord.Columns.mediaId == mediaId).fetchOne(db)
            {
                guard existing.authorId == record.authorId else { throw ServiceError.notFound("Media") }
                return (existing, false)
            }
            if let parentId = record.parentId {
                let parent = try Self.refer(
                    to: parentId, by: record, author: new.author, counting: "reply_count",
                    affinity: AffinityStep.reply, PostReplied.self, outbox: outbox, in: db)
                record.rootId = parent.rootId ?? parent.id
            }
            if let quoted = record.quoteOf {
                try Self.refer(
                    to: quoted, by: record, author: new.author, counting: "repost_count",
                    affinity: AffinityStep.repost, PostReposted.self, outbox: outbox, in: db)
            }
            try record.insert(db)
            for (position, mediaId) in new.moreMedia.enumerated() {
                try PostMediaRecord(postId: record.id, position: position + 1, mediaId: mediaId).insert(db)
            }
            try Self.adjustCounts(of: record.authorId, posts: 1, outbox: outbox, in: db)
            for mediaId in (record.mediaId.map { [$0] } ?? []) + new.moreMedia {
                try outbox.enqueue(
                    MediaAttached(
                        mediaId: mediaId, ownerId: record.authorId, visibility: .public, referenceType: "post",
                        referenceId: record.id), in: db)
            }
            // Each one named is told once, unless it is the author, someone a block stands
            // between them and the author, or the author of the post answered (told already).
            var told = Set([record.authorId])
            if let parentId = record.parentId, let parent = try PostRecord.fetchOne(db, key: parentId) {
                told.insert(parent.authorId)
            }
            for user in new.mentioned where told.insert(user).inserted {
                guard try !BlockMirror.isBlocked(record.authorId, user, in: db),
                    try !Self.mutes(record, for: user, in: db)
                else { continue }
                try outbox.enqueue(PostMentioned(postId: record.id, mentionedId: user, actor: new.author), in: db)
            }
            if record.parentId == nil {
                try Self.planFanOut(of: record.id, by: record.authorId, at: record.createdMs, jobs: jobs, in: db)
            }
            return (record, true)
        }
    }

    /// The post a new post answers or quotes (404 unless its author may act on it): counted in
    /// `column`, the new post's author's affinity for its author moved, and its author told with
    /// `Event` unless the post is their own or they muted the new post's words.
    @discardableResult
    static func refer<Event: PostActivityEvent>(
        to id: String, by record: PostRecord, author: EventActor, counting column: String, affinity: Double,
        _ event: Event.Type, outbox: Outbox, in db: Database
    ) throws -> PostRecord {
        guard let target = try actionablePost(id: id, viewer: record.authorId, in: db) else {
            throw ServiceError.notFound("Post")
        }
        try db.execute(sql: "UPDATE post SET \(column) = \(column) + 1 WHERE id = ?", arguments: [id])
        try addAffinity(affinity, of: record.authorId, for: target.authorId, in: db)
        if target.authorId != record.authorId, try !mutes(record, for: target.authorId, in: db) {
            try outbox.enqueue(
                Event(PostActivity(postId: id, authorId: target.authorId, actor: author, replyId: record.id)), in: db)
        }
        return target
    }

    /// Whether `user` muted words of the post (it then tells them nothing).
    static func mutes(_ record: PostRecord, for user: String, in db: Database) throws -> Bool {
        try mutedWords(of: user, at: record.createdAt, in: db).matches(record.caption ?? "")
    }

    /// A post `viewer` may see: not hidden and its media ready (unless it is theirs), and no
    /// block either way. A deleted post is found (as its thread's placeholder).
    static func visiblePost(id: String, viewer: String, in db: Database) throws -> PostRecord? {
        try PostRecord.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT p.* FROM post p WHERE p.id = :id
                    AND ((p.hidden_at IS NULL AND p.media_state = 'ready') OR p.author_id = :viewer)
                    AND \(BlockMirror.neitherBlocks(":viewer", "p.author_id"))
                    """), arguments: ["id": id, "viewer": viewer])
    }

    /// The post as `viewer` sees it, or nil.
    func post(id: String, viewer: String) async throws -> Post? {
        try await database.tracedRead { db in
            guard let record = try Self.visiblePost(id: id, viewer: viewer, in: db) else { return nil }
            return try views([record], viewer: viewer, in: db)[0]
        }
    }
}
