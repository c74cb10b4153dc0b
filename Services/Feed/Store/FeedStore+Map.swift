import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// The map: posts in a box, and what the cluster index is built from.
extension FeedStore {
    /// Moves with every change that can put a post on the map, move it or take it off
    /// (`map_version`, kept by triggers on `post`).
    func mapVersion() async throws -> Int64 {
        try await database.tracedRead { db in
            try Int64.fetchOne(db.cachedStatement(sql: "SELECT version FROM map_version")) ?? 0
        }
    }

    /// Every post the map shows (not hidden, deleted or still processing), oldest first: the
    /// order cluster seeds are chosen in, so clusters keep their ids as posts are added.
    func mapPoints() async throws -> (version: Int64, points: [(id: String, latitude: Double, longitude: Double)]) {
        try await database.tracedRead { db in
            let version = try Int64.fetchOne(db.cachedStatement(sql: "SELECT version FROM map_version")) ?? 0
            let cursor = try Row.fetchCursor(
                db,
                sql: """
                    SELECT id, latitude, longitude FROM post
                    WHERE \(PlaceIndex.posts.condition!) AND hidden_at IS NULL AND deleted_at IS NULL
                    AND media_state = 'ready'
                    ORDER BY created_ms, id
                    """)
            var points: [(id: String, latitude: Double, longitude: Double)] = []
            while let row = try cursor.next() { points.append((row[0], row[1], row[2])) }
            return (version, points)
        }
    }

    /// Posts among `ids` that `viewer` may see and did not mute, newest first, at most `limit`.
    func mapPosts(ids: [String], viewer: String, limit: Int, now: Date) async throws -> [Post] {
        let posts = try await posts(ids: ids, viewer: viewer, now: now)
        return Array(posts.sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }.prefix(limit))
    }

    /// Posts in `box` that `viewer` may see (and did not mute), newest first, after `position`:
    /// up to `limit + 1`. Candidates come from the place index (its latitude range, and its
    /// longitude range unless the box crosses the antimeridian, which is then checked here).
    func postsInBox(
        _ box: MapBox, viewer: String, after position: TimePosition?, limit: Int, now: Date
    ) async throws -> [(record: PostRecord, post: Post)] {
        try await database.tracedRead { db in
            let muted = try Self.mutedWords(of: viewer, at: now, in: db)
            let crosses = box.minLongitude > box.maxLongitude
            let range = (
                latitudes: box.minLatitude...box.maxLatitude,
                longitudes: crosses ? nil : Optional(box.minLongitude...box.maxLongitude)
            )
            return try Self.scan(
                .posts, box: range,
                distance: { point in
                    !crosses || point.longitude >= box.minLongitude || point.longitude <= box.maxLongitude ? 0 : nil
                }, after: position, limit: limit, in: db
            ) { chunk in
                let visible = try Self.visiblePosts(of: chunk, viewer: viewer, db: db)
                let records = chunk.compactMap { hit in visible[hit.id] }
                let posts = try views(records, viewer: viewer, in: db)
                return zip(records, posts).filter { !muted.matches($0.1.text) }
            }
        }
    }
}
