import Contracts
import Foundation
import GRDB
import ServiceKit

/// The feed service's database: posts, votes, and a local copy of blocks.
struct FeedStore: Sendable {
    let database: DatabasePool
    let outbox: Outbox

    /// SQL true when neither `viewer` nor the post's author has blocked the other.
    static let notBlocked = """
        NOT EXISTS (SELECT 1 FROM block b WHERE (b.blocker_id = :viewer AND b.blocked_id = p.author_id)
                                            OR (b.blocker_id = p.author_id AND b.blocked_id = :viewer))
        """

    /// Stores a post and, in the same transaction, tells media that its photo is now public.
    /// A photo is posted at most once: when its author already posted it (a retry whose first
    /// answer was lost, say), the existing post is returned and nothing is written.
    func create(_ record: PostRecord) async throws -> (post: PostRecord, created: Bool) {
        try await database.write { [outbox] db in
            if let existing = try PostRecord.filter(sql: "media_id = ?", arguments: [record.mediaID]).fetchOne(db) {
                guard existing.authorID == record.authorID else { throw ServiceError.notFound("Media") }
                return (existing, false)
            }
            try record.insert(db)
            try outbox.enqueue(
                MediaAttached(
                    mediaId: record.mediaID, ownerId: record.authorID, visibility: .public, referenceType: "post",
                    referenceId: record.id), in: db)
            return (record, true)
        }
    }

    /// A post `viewer` may see: not hidden (unless it is theirs) and no block either way.
    static func visiblePost(id: String, viewer: String, in db: Database) throws -> PostRecord? {
        try PostRecord.fetchOne(
            db,
            sql: """
                SELECT p.* FROM post p WHERE p.id = :id
                AND ((p.hidden_at IS NULL AND p.media_state = 'ready') OR p.author_id = :viewer) AND \(notBlocked)
                """, arguments: ["id": id, "viewer": viewer])
    }

    static func myVote(post: String, viewer: String, in db: Database) throws -> VoteValue? {
        VoteValue(
            weight: try Int.fetchOne(
                db, sql: "SELECT value FROM vote WHERE post_id = ? AND user_id = ?", arguments: [post, viewer]))
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
                PostSummary(id: $0.id, authorId: $0.authorID, hidden: $0.hiddenAt != nil)
            }
        }
    }

    /// Sets (or with nil removes) `viewer`'s vote and adjusts the post's counts by the
    /// difference, in one transaction: the counts always equal the votes.
    func setVote(_ value: VoteValue?, post id: String, viewer: String, at now: Date) async throws -> Post? {
        try await database.write { db in
            guard var record = try Self.visiblePost(id: id, viewer: viewer, in: db), record.hiddenAt == nil else {
                return nil
            }
            let old = try Self.myVote(post: id, viewer: viewer, in: db)
            guard old != value else { return record.post(myVote: value) }
            if let value {
                try db.execute(
                    sql: """
                        INSERT INTO vote (post_id, user_id, value, updated_at) VALUES (?, ?, ?, ?)
                        ON CONFLICT (post_id, user_id) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                        """, arguments: [id, viewer, value.weight, now])
            } else {
                try db.execute(sql: "DELETE FROM vote WHERE post_id = ? AND user_id = ?", arguments: [id, viewer])
            }
            let up = (value == .up ? 1 : 0) - (old == .up ? 1 : 0)
            let down = (value == .down ? 1 : 0) - (old == .down ? 1 : 0)
            try db.execute(
                sql: "UPDATE post SET upvotes = upvotes + ?, downvotes = downvotes + ? WHERE id = ?",
                arguments: [up, down, id])
            record.upvotes += up
            record.downvotes += down
            return record.post(myVote: value)
        }
    }

    /// Posts within `radius` metres of `center` that `viewer` may see, newest first, after
    /// `position`. Returns up to `limit + 1` posts (one more tells the caller there is a next
    /// page).
    ///
    /// Candidates come from `post_by_place` alone (a latitude range, the longitude range when
    /// the box does not wrap, newest first) and are checked against the exact distance; only
    /// those within the radius are read, with the hidden and block checks. Batches continue
    /// after the last candidate until the page is full or the candidates run out.
    func nearby(
        center: Coordinate, radius: Double, viewer: String, after position: TimePosition?, limit: Int
    ) async throws -> [(record: PostRecord, post: Post)] {
        let box = center.boundingBox(radius: radius)
        let batch = max(50, limit * 4)
        return try await database.read { db in
            var found: [(PostRecord, Post)] = []
            var after = position.map { (milliseconds: JSONCoding.milliseconds($0.createdAt), id: $0.id) }
            while found.count <= limit {
                let candidates = try Self.candidates(in: box, after: after, batch: batch, db: db)
                let inside = candidates.compactMap { candidate -> (id: String, distance: Double)? in
                    let distance = center.distance(to: candidate.point)
                    return distance <= radius ? (candidate.id, distance) : nil
                }
                // Read only as many rows as the page still needs; more when some turn out to
                // be hidden or blocked.
                var pending = inside[...]
                while found.count <= limit, !pending.isEmpty {
                    let chunk = pending.prefix(limit + 1 - found.count)
                    pending = pending.dropFirst(chunk.count)
                    let rows = try Self.visibleRows(ids: chunk.map(\.id), viewer: viewer, db: db)
                    for (id, distance) in chunk {
                        guard let row = rows[id] else { continue }
                        let record = try PostRecord(row: row)
                        found.append(
                            (record, record.post(myVote: VoteValue(weight: row["my_vote"]), distance: distance)))
                    }
                }
                guard candidates.count == batch, let last = candidates.last else { break }
                after = (last.milliseconds, last.id)
            }
            return found.map { (record: $0.0, post: $0.1) }
        }
    }

    /// The rows of the posts among `ids` that `viewer` may see, with the viewer's vote, by id.
    static func visibleRows(ids: [String], viewer: String, db: Database) throws -> [String: Row] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT p.*, v.value AS my_vote FROM post p
                LEFT JOIN vote v ON v.post_id = p.id AND v.user_id = :viewer
                WHERE p.id IN (SELECT value FROM json_each(:ids)) AND p.hidden_at IS NULL AND p.media_state = 'ready'
                AND \(notBlocked)
                """,
            arguments: ["viewer": viewer, "ids": String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)])
        return Dictionary(uniqueKeysWithValues: rows.map { row in (row["id"] as String, row) })
    }

    /// One batch of posts in the box, newest first, read from the index alone.
    static func candidates(
        in box: (latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>?),
        after: (milliseconds: Int64, id: String)?, batch: Int, db: Database
    ) throws -> [(id: String, milliseconds: Int64, point: Coordinate)] {
        var conditions = ["latitude BETWEEN :minLat AND :maxLat"]
        var arguments: StatementArguments = [
            "minLat": box.latitudes.lowerBound, "maxLat": box.latitudes.upperBound, "batch": batch,
        ]
        if let longitudes = box.longitudes {
            conditions.append("longitude BETWEEN :minLon AND :maxLon")
            _ = arguments.append(contentsOf: ["minLon": longitudes.lowerBound, "maxLon": longitudes.upperBound])
        }
        if let after {
            conditions.append("(created_ms < :afterMs OR (created_ms = :afterMs AND id < :afterID))")
            _ = arguments.append(contentsOf: ["afterMs": after.milliseconds, "afterID": after.id])
        }
        return try Row.fetchAll(
            db,
            sql: """
                SELECT id, created_ms, latitude, longitude FROM post INDEXED BY post_by_place
                WHERE \(conditions.joined(separator: " AND ")) ORDER BY created_ms DESC, id DESC LIMIT :batch
                """, arguments: arguments
        ).map { row in
            (row["id"], row["created_ms"], try Coordinate(latitude: row["latitude"], longitude: row["longitude"]))
        }
    }

    // MARK: - Events

    /// `content.hidden`: the post stops being listed or shown.
    static func hide(_ event: ContentHidden, at now: Date, in db: Database) throws {
        guard event.targetType == .post else { return }
        try db.execute(
            sql: "UPDATE post SET hidden_at = ? WHERE id = ? AND hidden_at IS NULL", arguments: [now, event.targetId])
    }

    /// `media.ready`: a post waiting for its media is shown.
    static func mediaReady(_ event: MediaReady, in db: Database) throws {
        try db.execute(
            sql:
                "UPDATE post SET media_state = 'ready' WHERE media_id = ? AND author_id = ? AND media_state = 'processing'",
            arguments: [event.mediaId, event.ownerId])
    }

    /// `media.rejected`: the post's media is gone; only its author still sees the post, with
    /// the media's state, and can delete it.
    static func mediaRejected(_ event: MediaRejected, in db: Database) throws {
        try db.execute(
            sql: "UPDATE post SET media_state = 'rejected' WHERE media_id = ? AND author_id = ?",
            arguments: [event.mediaId, event.ownerId])
    }

    /// `user.blocked`: remembered locally for every later query.
    static func block(_ event: UserBlocked, in db: Database) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO block (blocker_id, blocked_id) VALUES (?, ?)",
            arguments: [event.blockerId, event.blockedId])
    }

    /// `user.unblocked`.
    static func unblock(_ event: UserUnblocked, in db: Database) throws {
        try db.execute(
            sql: "DELETE FROM block WHERE blocker_id = ? AND blocked_id = ?",
            arguments: [event.blockerId, event.blockedId])
    }
}
