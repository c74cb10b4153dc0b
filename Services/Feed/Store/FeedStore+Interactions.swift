import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// What people do with posts: likes, reposts, deleting one's own post, a thread's replies and a
/// user's posts. Every count changes in the transaction of its action.
extension FeedStore {
    /// A post `viewer` may act on: one they may see, neither hidden nor deleted.
    static func actionablePost(id: String, viewer: String, in db: Database) throws -> PostRecord? {
        guard let record = try visiblePost(id: id, viewer: viewer, in: db), record.hiddenAt == nil,
            record.deletedAt == nil
        else { return nil }
        return record
    }

    /// Likes (or with false, unlikes) the post; liking again changes nothing. A first like
    /// tells the author (`post.liked`) unless it is their own. Nil: no such post for them.
    func setLike(_ liked: Bool, post id: String, by actor: EventActor, at now: Date) async throws -> Post? {
        try await database.tracedWrite { [outbox] db in
            guard let record = try Self.actionablePost(id: id, viewer: actor.userId, in: db) else { return nil }
            if liked {
                try PostLikeRecord(postId: id, userId: actor.userId, createdAt: now).insert(db, onConflict: .ignore)
                if db.changesCount > 0 {
                    try db.execute(sql: "UPDATE post SET like_count = like_count + 1 WHERE id = ?", arguments: [id])
                    try Self.addAffinity(AffinityStep.like, of: actor.userId, for: record.authorId, in: db)
                    if record.authorId != actor.userId {
                        try outbox.enqueue(
                            PostLiked(PostActivity(postId: id, authorId: record.authorId, actor: actor)), in: db)
                    }
                }
            } else if try PostLikeRecord.deleteOne(db, key: ["post_id": id, "user_id": actor.userId]) {
                try db.execute(sql: "UPDATE post SET like_count = like_count - 1 WHERE id = ?", arguments: [id])
            }
            return try views([try PostRecord.fetchOne(db, key: id) ?? record], viewer: actor.userId, in: db)[0]
        }
    }

    /// Reposts the post as it is (or with false takes the repost back). A repost reaches the
    /// reposter's followers' timelines and tells the author (`post.reposted`).
    func setRepost(_ reposted: Bool, post id: String, by actor: EventActor, at now: Date) async throws -> Post? {
        try await database.tracedWrite { [outbox, jobs] db in
            guard let record = try Self.actionablePost(id: id, viewer: actor.userId, in: db) else { return nil }
            let me = actor.userId
            if reposted {
                let milliseconds = JSONCoding.milliseconds(now)
                try RepostRecord(postId: id, userId: me, createdAt: now, createdMs: milliseconds)
                    .insert(db, onConflict: .ignore)
                if db.changesCount > 0 {
                    try db.execute(sql: "UPDATE post SET repost_count = repost_count + 1 WHERE id = ?", arguments: [id])
                    try Self.addAffinity(AffinityStep.repost, of: me, for: record.authorId, in: db)
                    try Self.planFanOut(of: id, by: me, at: milliseconds, repost: true, jobs: jobs, in: db)
                    if record.authorId != me {
                        try outbox.enqueue(
                            PostReposted(PostActivity(postId: id, authorId: record.authorId, actor: actor)), in: db)
                    }
                }
            } else if try RepostRecord.deleteOne(db, key: ["post_id": id, "user_id": me]) {
                try db.execute(sql: "UPDATE post SET repost_count = repost_count - 1 WHERE id = ?", arguments: [id])
                try db.execute(
                    sql: "DELETE FROM timeline WHERE post_id = ? AND source_id = ? AND repost", arguments: [id, me])
            }
            return try views([try PostRecord.fetchOne(db, key: id) ?? record], viewer: me, in: db)[0]
        }
    }

    /// Deletes the author's own post: the row stays, emptied, as its replies' placeholder; its
    /// likes, reposts and votes go; media is told it no longer references the photos; it leaves
    /// every timeline and the author's count. False: not theirs, or gone already.
    func delete(post id: String, by author: String, at now: Date) async throws -> Bool {
        try await database.tracedWrite { [outbox] db in
            guard var record = try PostRecord.fetchOne(db, key: id), record.authorId == author,
                record.deletedAt == nil
            else { return false }
            for mediaId in try Self.mediaIds(of: record, in: db) {
                try outbox.enqueue(
                    MediaDetached(mediaId: mediaId, ownerId: author, referenceType: "post", referenceId: id), in: db)
            }
            for table in ["post_media", "post_like", "repost", "vote", "timeline"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE post_id = ?", arguments: [id])
            }
            if let quoted = record.quoteOf {
                try db.execute(
                    sql: "UPDATE post SET repost_count = MAX(repost_count - 1, 0) WHERE id = ?", arguments: [quoted])
            }
            if record.hiddenAt == nil {
                try Self.adjustCounts(of: author, posts: -1, outbox: outbox, in: db)
            }
            (record.mediaId, record.caption, record.linkUrl, record.latitude, record.longitude) = (
                nil, nil, nil, nil, nil
            )
            (record.likeCount, record.repostCount, record.upvotes, record.downvotes) = (0, 0, 0, 0)
            record.deletedAt = now
            try record.update(db)
            return true
        }
    }

    /// The direct replies to a post `viewer` may see, oldest first (a thread read in order):
    /// none hidden, muted or across a block; a deleted one as its placeholder. Nil: no such post.
    func replies(
        to id: String, viewer: String, after position: TimePosition?, limit: Int, now: Date
    ) async throws -> Page<Post>? {
        try await database.tracedRead { db in
            guard try Self.visiblePost(id: id, viewer: viewer, in: db) != nil else { return nil }
            let records = try PostRecord.filter(PostRecord.Columns.parentId == id)
                .filter(sql: "hidden_at IS NULL AND (media_state = 'ready' OR author_id = ?)", arguments: [viewer])
                .filter(sql: BlockMirror.neitherBlocks("?", "author_id"), arguments: [viewer, viewer])
                .filter(sql: MuteMirror.notMuted(by: "?", "author_id"), arguments: [viewer])
                .oldestFirst(after: position, limit: limit + 1)
                .fetchAll(db)
            return try page(records, limit: limit, viewer: viewer, now: now, in: db)
        }
    }

    /// One page of `records` (fetched with `limit + 1`) as `viewer` sees them, without the
    /// posts whose words they muted; the cursor follows the rows, muted or not.
    func page(
        _ records: [PostRecord], limit: Int, viewer: String, now: Date, in db: Database
    ) throws -> Page<Post> {
        let shown = Array(records.prefix(limit))
        let next = records.count > limit ? shown.last.map { TimePosition(createdAt: $0.createdAt, id: $0.id) } : nil
        return Page(
            items: try Self.unmuted(try views(shown, viewer: viewer, in: db), viewer: viewer, at: now, in: db),
            nextCursor: next.map(Cursor.encode))
    }

    /// `author`'s posts and quotes (not replies), newest first, as `viewer` sees them; nil
    /// when a block stands between them.
    func posts(
        by author: String, viewer: String, after position: TimePosition?, limit: Int, now: Date
    ) async throws -> Page<Post>? {
        try await database.tracedRead { db in
            guard try !BlockMirror.isBlocked(viewer, author, in: db) else { return nil }
            var sql = """
                SELECT * FROM post INDEXED BY post_by_author WHERE author_id = :author AND parent_id IS NULL
                AND hidden_at IS NULL AND deleted_at IS NULL AND (media_state = 'ready' OR author_id = :viewer)
                """
            var arguments: StatementArguments = ["author": author, "viewer": viewer, "limit": limit + 1]
            if let position {
                sql += " AND (created_ms < :ms OR (created_ms = :ms AND id < :id))"
                _ = arguments.append(contentsOf: [
                    "ms": JSONCoding.milliseconds(position.createdAt), "id": position.id,
                ])
            }
            let records = try PostRecord.fetchAll(
                db, sql: sql + " ORDER BY created_ms DESC, id DESC LIMIT :limit", arguments: arguments)
            return try page(records, limit: limit, viewer: viewer, now: now, in: db)
        }
    }
}

extension FeedStore {
    /// At a deletion, before the user's posts go: their likes and reposts leave others' counts,
    /// and their posts and reposts leave every timeline, as does their own.
    static func eraseInteractions(of user: String, in db: Database) throws {
        for statement in [
            "UPDATE post SET like_count = like_count - 1 WHERE id IN (SELECT post_id FROM post_like WHERE user_id = ?1)",
            "UPDATE post SET repost_count = repost_count - 1 WHERE id IN (SELECT post_id FROM repost WHERE user_id = ?1)",
            "DELETE FROM timeline WHERE source_id = ?1 AND post_id IN (SELECT post_id FROM repost WHERE user_id = ?1)",
            "DELETE FROM timeline WHERE post_id IN (SELECT id FROM post WHERE author_id = ?1)",
            "DELETE FROM timeline WHERE user_id = ?1",
            "DELETE FROM post_like WHERE user_id = ?1",
            "DELETE FROM repost WHERE user_id = ?1",
            "DELETE FROM feed_signal WHERE user_id = ?1",
            "DELETE FROM affinity WHERE user_id = ?1 OR author_id = ?1",
        ] {
            try db.execute(sql: statement, arguments: [user])
        }
    }
}
