import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// The job that writes a post (or a repost) into its source's followers' timelines, a batch
/// of followers per run.
enum TimelineFanOut {
    static let kind: JobKind = "timeline.fanout"
    /// Followers written per run (one transaction each).
    static let batch = 1000
    /// A source with at most this many followers has the post written into their timelines in
    /// the post's own transaction: no job, so no second and third commit (a claim, a finish) and
    /// a third fewer pages in the write-ahead log for the post of a user with a few friends.
    static let inline = 100

    struct Job: Codable, Sendable {
        var postId: String
        var sourceId: String
        var atMs: Int64
        var repost: Bool
        /// Where the previous batch ended in the source's followers (`created_at`, id).
        var after: TimePosition?
        var run: Int
    }
}

/// The following feed, written ahead: a post lands in its author's own timeline at once, and in
/// its followers' at once too when they are few (``TimelineFanOut/inline``), through
/// ``TimelineFanOut`` jobs when they are more; a repost likewise through the reposter's
/// followers. Reading a page costs the same however many people one follows. Hidden, deleted
/// and blocked posts are filtered at read time; an unfollow takes the user's rows out at once.
extension FeedStore {
    /// Writes the post into its source's own timeline, and into its followers' when they are
    /// few; plans the followers' batches when they are more.
    static func planFanOut(
        of postId: String, by source: String, at milliseconds: Int64, repost: Bool = false, jobs: JobQueue,
        in db: Database
    ) throws {
        try TimelineRecord(userId: source, atMs: milliseconds, postId: postId, sourceId: source, repost: repost)
            .insert(db, onConflict: .ignore)
        let job = TimelineFanOut.Job(
            postId: postId, sourceId: source, atMs: milliseconds, repost: repost, after: nil, run: 0)
        let few = try followers(of: job, limit: TimelineFanOut.inline + 1, in: db)
        if few.count <= TimelineFanOut.inline {
            try write(job, to: few, in: db)
        } else {
            try jobs.schedule(TimelineFanOut.kind, key: "\(postId):\(source):0", payload: job, in: db)
        }
    }

    /// One batch of a fan-out: the next followers get the row; a full batch plans the next.
    static func fanOut(_ job: TimelineFanOut.Job, jobs: JobQueue, in db: Database) throws {
        // A post deleted or a repost taken back meanwhile goes no further.
        guard try PostRecord.filter(key: job.postId).filter(PostRecord.Columns.deletedAt == nil).fetchCount(db) > 0
        else { return }
        if job.repost, try RepostRecord.fetchOne(db, key: ["post_id": job.postId, "user_id": job.sourceId]) == nil {
            return
        }
        let followers = try followers(of: job, limit: TimelineFanOut.batch, in: db)
        try write(job, to: followers, in: db)
        guard followers.count == TimelineFanOut.batch, let last = followers.last else { return }
        var next = job
        next.after = TimePosition(createdAt: last.createdAt, id: last.followerId)
        next.run += 1
        try jobs.schedule(TimelineFanOut.kind, key: "\(job.postId):\(job.sourceId):\(next.run)", payload: next, in: db)
    }

    /// The source's next `limit` followers after where `job`'s previous batch ended.
    private static func followers(of job: TimelineFanOut.Job, limit: Int, in db: Database) throws -> [FollowRecord] {
        try TimePosition.oldestFirst(
            FollowRecord.self, "SELECT * FROM follow WHERE followee_id = ?", arguments: [job.sourceId],
            after: job.after, limit: limit, idColumn: "follower_id", in: db)
    }

    /// The job's post into each of `followers`' timelines.
    private static func write(_ job: TimelineFanOut.Job, to followers: [FollowRecord], in db: Database) throws {
        let insert = try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO timeline (user_id, at_ms, post_id, source_id, repost) VALUES (?, ?, ?, ?, ?)
                """)
        for follower in followers {
            try insert.execute(arguments: [follower.followerId, job.atMs, job.postId, job.sourceId, job.repost])
        }
    }

    /// A new follow: the followee's latest posts enter the follower's timeline at once.
    static func backfill(_ follower: String, from followee: String, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO timeline (user_id, at_ms, post_id, source_id, repost)
                SELECT ?1, created_ms, id, ?2, 0 FROM post INDEXED BY post_by_author
                WHERE author_id = ?2 AND parent_id IS NULL AND deleted_at IS NULL
                ORDER BY created_ms DESC LIMIT 50
                """, arguments: [follower, followee])
    }

    /// An unfollow (or a block): what the other brought leaves the user's timeline.
    static func forget(_ source: String, in user: String, db: Database) throws {
        try db.execute(sql: "DELETE FROM timeline WHERE user_id = ? AND source_id = ?", arguments: [user, source])
    }

    /// One page of `viewer`'s following feed, newest first: their own posts and those of the
    /// people they follow, and what those people reposted; nothing hidden, deleted, muted (its
    /// words, its author or its reposter) or across a block, each post once (at its newest row, across pages too).
    func following(
        viewer: String, after position: TimePosition?, limit: Int, now: Date
    ) async throws -> (items: [TimelineItem], next: TimePosition?) {
        try await database.tracedRead { db in
            let muted = try Self.mutedWords(of: viewer, at: now, in: db)
            var items: [TimelineItem] = []
            var after = position
            var next: TimePosition?
            // Rows that turn out hidden or blocked are skipped; read on until the page is full.
            scanning: while true {
                // A post brought twice (posted, then reposted) shows once, at its newest row that
                // is not a repost by someone the viewer muted.
                var sql = """
                    SELECT * FROM timeline t WHERE user_id = :viewer AND NOT EXISTS (
                        SELECT 1 FROM timeline n WHERE n.post_id = t.post_id AND n.user_id = t.user_id
                        AND n.at_ms > t.at_ms AND (NOT n.repost OR \(MuteMirror.notMuted(by: ":viewer", "n.source_id"))))
                    AND (NOT t.repost OR \(MuteMirror.notMuted(by: ":viewer", "t.source_id")))
                    """
                var arguments: StatementArguments = ["viewer": viewer, "limit": limit * 2]
                if let after {
                    sql += " AND (at_ms < :ms OR (at_ms = :ms AND post_id < :post))"
                    _ = arguments.append(contentsOf: ["ms": JSONCoding.milliseconds(after.createdAt), "post": after.id])
                }
                // Kept statements (two texts: the first page and the rest): every page reads here.
                let rows = try TimelineRecord.fetchAll(
                    db.cachedStatement(sql: sql + " ORDER BY at_ms DESC, post_id DESC LIMIT :limit"),
                    arguments: arguments)
                let records = try Self.feedPosts(ids: rows.map(\.postId), viewer: viewer, in: db)
                let posts = Dictionary(
                    zip(records.map(\.id), try views(records, viewer: viewer, shown: false, in: db)).map { ($0, $1) }
                ) { first, _ in first }
                for row in rows {
                    let position = TimePosition(createdAt: JSONCoding.date(milliseconds: row.atMs), id: row.postId)
                    if items.count == limit {
                        next = after
                        break scanning
                    }
                    after = position
                    guard let post = posts[row.postId], !muted.matches(post.text) else { continue }
                    items.append(
                        TimelineItem(
                            post: post, repostedBy: row.repost ? row.sourceId : nil,
                            at: JSONCoding.date(milliseconds: row.atMs)))
                }
                if rows.count < limit * 2 { break }
            }
            // What the cards show, for the items of the page only.
            let shown = try self.shown(items.map(\.post), viewer: viewer, in: db)
            let reposters = try views.people(items.compactMap(\.repostedBy), in: db)
            for index in items.indices {
                items[index].post = shown[index]
                items[index].by = items[index].repostedBy.flatMap { reposters[$0] }
            }
            return (items, next)
        }
    }

    /// The posts among `ids` a feed shows `viewer`: not hidden, deleted or still processing,
    /// no block either way, nobody the viewer muted. A kept statement, as the timeline's.
    static func feedPosts(ids: [String], viewer: String, in db: Database) throws -> [PostRecord] {
        try PostRecord.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT p.* FROM post p WHERE p.id IN (SELECT value FROM json_each(:ids))
                    AND p.hidden_at IS NULL AND p.deleted_at IS NULL
                    AND (p.media_state = 'ready' OR p.author_id = :viewer)
                    AND \(BlockMirror.neitherBlocks(":viewer", "p.author_id"))
                    AND \(MuteMirror.notMuted(by: ":viewer", "p.author_id"))
                    """),
            arguments: ["ids": JSONList.argument(ids), "viewer": viewer])
    }
}
