import Contracts
import Foundation
import GRDB
import ServiceKit

/// The nearby feed: posts around a point, newest first.
extension FeedStore {
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
                AND \(BlockMirror.neitherBlocks(":viewer", "p.author_id"))
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
}
