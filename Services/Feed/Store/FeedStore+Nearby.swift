import Contracts
import Foundation
import GRDB
import ServiceKit

/// Places: the nearby feed (posts around a point, newest first) and the scan it shares with
/// challenges open for voting near a point.
extension FeedStore {
    /// Posts within `radius` metres of `center` that `viewer` may see (and did not mute), newest first, after
    /// `position`. Returns up to `limit + 1` posts (``scan(_:center:radius:after:limit:in:visible:)``
    /// over `post_by_place`).
    func nearby(
        center: Coordinate, radius: Double, viewer: String, after position: TimePosition?, limit: Int, now: Date
    ) async throws -> [(record: PostRecord, post: Post)] {
        try await database.tracedRead { db in
            let muted = try Self.mutedWords(of: viewer, at: now, in: db)
            return try Self.scan(.posts, center: center, radius: radius, after: position, limit: limit, in: db) {
                chunk in
                let rows = try Self.visibleRows(ids: chunk.map(\.id), viewer: viewer, db: db)
                let records = try chunk.compactMap { id, _ in try rows[id].map(PostRecord.init(row:)) }
                let distances = Dictionary(chunk.map { ($0.id, $0.distance) }) { first, _ in first }
                let posts = try Self.views(records, viewer: viewer, distances: distances, in: db)
                return zip(records, posts).filter { !muted.matches($0.1.text) }
            }
        }
    }

    /// The newest `limit` posts within `radius` of `center` that `viewer` may see (and did not
    /// mute), as candidates for the ranked order.
    func nearbyCandidates(
        center: Coordinate, radius: Double, viewer: String, limit: Int, now: Date
    ) async throws -> [TimeDecayRanking.Candidate] {
        try await database.tracedRead { db in
            let muted = try Self.mutedWords(of: viewer, at: now, in: db)
            // Only what the ranking and the mute check read, not whole posts.
            return try Self.scan(.posts, center: center, radius: radius, after: nil, limit: limit - 1, in: db) {
                chunk in
                let rows = try Self.visibleRows(
                    ids: chunk.map(\.id), viewer: viewer, db: db,
                    columns: "p.id, p.upvotes, p.downvotes, p.created_ms, p.caption")
                return chunk.compactMap { id, _ -> TimeDecayRanking.Candidate? in
                    guard let row = rows[id], !muted.matches(row["caption"] as String? ?? "") else { return nil }
                    return TimeDecayRanking.Candidate(
                        postId: id, upvotes: row["upvotes"], downvotes: row["downvotes"],
                        createdAt: Date(timeIntervalSince1970: Double(row["created_ms"] as Int64) / 1000))
                }
            }
        }
    }

    /// `ids` as `viewer` may see them now, in the order given (a ranked page).
    func posts(ids: [String], viewer: String, now: Date) async throws -> [Post] {
        guard !ids.isEmpty else { return [] }
        return try await database.tracedRead { db in
            let muted = try Self.mutedWords(of: viewer, at: now, in: db)
            let rows = try Self.visibleRows(ids: ids, viewer: viewer, db: db)
            let records = try ids.compactMap { id in try rows[id].map(PostRecord.init(row:)) }
            return try Self.views(records, viewer: viewer, in: db).filter { !muted.matches($0.text) }
        }
    }

    /// Rows of `index` within `radius` metres of `center`, newest first, after `position`: up
    /// to `limit + 1` of what `visible` makes of them (one more tells the caller there is a
    /// next page).
    ///
    /// Candidates come from the index alone (a latitude range, the longitude range when the
    /// box does not wrap, newest first) and are checked against the exact distance; only those
    /// within the radius go to `visible`, which reads their rows with the hidden and block
    /// checks and drops what the viewer may not see. Batches continue after the last candidate
    /// until the page is full or the candidates run out.
    static func scan<Item>(
        _ index: PlaceIndex, center: Coordinate, radius: Double, after position: TimePosition?, limit: Int,
        in db: Database, visible: ([(id: String, distance: Double)]) throws -> [Item]
    ) throws -> [Item] {
        try scan(
            index, box: center.boundingBox(radius: radius),
            distance: { point in
                let distance = center.distance(to: point)
                return distance <= radius ? distance : nil
            }, after: position, limit: limit, in: db, visible: visible)
    }

    /// The same scan over any index box: `distance` says how far a candidate is, nil when it
    /// is not to be shown at all (outside the circle, or the antimeridian side of a box).
    static func scan<Item>(
        _ index: PlaceIndex, box: (latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>?),
        distance: (Coordinate) -> Double?, after position: TimePosition?, limit: Int,
        in db: Database, visible: ([(id: String, distance: Double)]) throws -> [Item]
    ) throws -> [Item] {
        let batch = max(50, limit * 4)
        var found: [Item] = []
        var after = position.map { (milliseconds: JSONCoding.milliseconds($0.createdAt), id: $0.id) }
        while found.count <= limit {
            let candidates = try candidates(index, in: box, after: after, batch: batch, db: db)
            let inside = candidates.compactMap { candidate -> (id: String, distance: Double)? in
                distance(candidate.point).map { (candidate.id, $0) }
            }
            // Read only as many rows as the page still needs; more when some turn out to
            // be hidden or blocked.
            var pending = inside[...]
            while found.count <= limit, !pending.isEmpty {
                let chunk = pending.prefix(limit + 1 - found.count)
                pending = pending.dropFirst(chunk.count)
                found += try visible(Array(chunk))
            }
            guard candidates.count == batch, let last = candidates.last else { break }
            after = (last.milliseconds, last.id)
        }
        return found
    }

    /// The rows of the posts among `ids` that `viewer` may see, by id (`columns` of them: all
    /// by default).
    static func visibleRows(
        ids: [String], viewer: String, db: Database, columns: String = "p.*"
    ) throws -> [String: Row] {
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT \(columns) FROM post p
                WHERE p.id IN (SELECT value FROM json_each(:ids)) AND p.hidden_at IS NULL AND p.media_state = 'ready'
                AND p.deleted_at IS NULL
                AND \(BlockMirror.neitherBlocks(":viewer", "p.author_id"))
                AND \(MuteMirror.notMuted(by: ":viewer", "p.author_id"))
                """,
            arguments: ["viewer": viewer, "ids": String(decoding: try JSONEncoder().encode(ids), as: UTF8.self)])
        return Dictionary(uniqueKeysWithValues: rows.map { row in (row["id"] as String, row) })
    }

    /// A place index the nearby scan reads: `latitude, longitude, <time>, id`, newest first.
    struct PlaceIndex: Sendable {
        let table: String
        let name: String
        /// Milliseconds since 1970, the order.
        let time: String
        /// The partial index's own condition, repeated so that SQLite may use it.
        let condition: String?

        static let posts = PlaceIndex(
            table: "post", name: "post_by_place", time: "created_ms",
            condition: "latitude IS NOT NULL AND media_id IS NOT NULL AND parent_id IS NULL")
        static let spots = PlaceIndex(table: "spot", name: "spot_by_place", time: "created_ms", condition: nil)
        static let votingChallenges = PlaceIndex(
            table: "challenge", name: "challenge_voting_by_place", time: "voting_ms",
            condition: "status = 'voting' AND latitude IS NOT NULL")
    }

    /// One batch of the index's rows in the box, newest first, read from the index alone.
    static func candidates(
        _ index: PlaceIndex, in box: (latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>?),
        after: (milliseconds: Int64, id: String)?, batch: Int, db: Database
    ) throws -> [(id: String, milliseconds: Int64, point: Coordinate)] {
        var conditions = ["latitude BETWEEN :minLat AND :maxLat"] + (index.condition.map { [$0] } ?? [])
        var arguments: StatementArguments = [
            "minLat": box.latitudes.lowerBound, "maxLat": box.latitudes.upperBound, "batch": batch,
        ]
        if let longitudes = box.longitudes {
            conditions.append("longitude BETWEEN :minLon AND :maxLon")
            _ = arguments.append(contentsOf: ["minLon": longitudes.lowerBound, "maxLon": longitudes.upperBound])
        }
        let time = index.time
        if let after {
            conditions.append("(\(time) < :afterMs OR (\(time) = :afterMs AND id < :afterID))")
            _ = arguments.append(contentsOf: ["afterMs": after.milliseconds, "afterID": after.id])
        }
        return try Row.fetchAll(
            db,
            sql: """
                SELECT id, \(time) AS t, latitude, longitude FROM \(index.table) INDEXED BY \(index.name)
                WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(time) DESC, id DESC LIMIT :batch
                """, arguments: arguments
        ).map { row in
            (row["id"], row["t"], try Coordinate(latitude: row["latitude"], longitude: row["longitude"]))
        }
    }
}
