import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

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
            let found = try Self.scan(.posts, center: center, radius: radius, after: position, limit: limit, in: db) {
                chunk in
                let visible = try Self.visiblePosts(of: chunk, viewer: viewer, db: db)
                let records = chunk.compactMap { hit in visible[hit.id] }
                let distances = Dictionary(chunk.map { ($0.id, $0.distance) }) { first, _ in first }
                let posts = try views(records, viewer: viewer, distances: distances, shown: false, in: db)
                return zip(records, posts).filter { !muted.matches($0.1.text) }
            }
            // What the cards show, once for the page.
            return zip(found.map(\.0), try shown(found.map(\.1), viewer: viewer, in: db)).map { ($0, $1) }
        }
    }

    /// The newest `limit` posts within `radius` of `center`, as candidates for the ranked
    /// order, whoever may see them: read by the scan of the cells alone (with each row's
    /// votes), no post read whole. What a reader may not see is left out when a page is read
    /// (``posts(ids:viewer:now:)``).
    func nearbyCandidates(center: Coordinate, radius: Double, limit: Int) async throws -> [TimeDecayRanking.Candidate] {
        try await database.tracedRead { db in
            let next = try Self.newestFirst(
                .posts, in: center.boundingBox(radius: radius), after: nil, batch: limit, db: db)
            let circle = center.circle(radius: radius)
            var candidates: [TimeDecayRanking.Candidate] = []
            candidates.reserveCapacity(limit)
            while candidates.count < limit, let row = try next() {
                guard circle.contains(row.point) else { continue }
                candidates.append(
                    TimeDecayRanking.Candidate(
                        postId: row.id, votes: row.votes,
                        createdAt: Date(timeIntervalSince1970: Double(row.milliseconds) / 1000)))
            }
            return candidates
        }
    }

    /// `ids` as `viewer` may see them now, in the order given (a ranked page).
    func posts(ids: [String], viewer: String, now: Date) async throws -> [Post] {
        guard !ids.isEmpty else { return [] }
        return try await database.tracedRead { db in
            let muted = try Self.mutedWords(of: viewer, at: now, in: db)
            let visible = try Self.visiblePosts(ids: ids, viewer: viewer, db: db)
            let records = ids.compactMap { id in visible[id] }
            return try views(records, viewer: viewer, in: db).filter { !muted.matches($0.text) }
        }
    }

    /// Rows of `index` within `radius` metres of `center`, newest first, after `position`: up
    /// to `limit + 1` of what `visible` makes of them (one more tells the caller there is a
    /// next page).
    ///
    /// Candidates come from the index alone, newest first (``newestFirst(_:in:after:batch:db:)``),
    /// and are checked against the exact distance; only those within the radius go to
    /// `visible`, which reads their rows with the hidden and block checks and drops what the
    /// viewer may not see. Candidates are read until the page is full or they run out.
    static func scan<Item>(
        _ index: PlaceIndex, center: Coordinate, radius: Double, after position: TimePosition?, limit: Int,
        in db: Database, visible: ([PlaceHit]) throws -> [Item]
    ) throws -> [Item] {
        try scan(
            index, box: center.boundingBox(radius: radius),
            distance: { point in
                let distance = center.distance(to: point)
                return distance <= radius ? distance : nil
            }, after: position, limit: limit, in: db, visible: visible)
    }

    /// A row of a place index within the circle (or box): its id, its rowid (for reading it
    /// in the same transaction) and how far it is.
    typealias PlaceHit = (id: String, rowid: Int64, distance: Double)

    /// The same scan over any index box: `distance` says how far a candidate is, nil when it
    /// is not to be shown at all (outside the circle, or the antimeridian side of a box).
    static func scan<Item>(
        _ index: PlaceIndex, box: (latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>?),
        distance: (Coordinate) -> Double?, after position: TimePosition?, limit: Int,
        in db: Database, visible: ([PlaceHit]) throws -> [Item]
    ) throws -> [Item] {
        let after = position.map { (milliseconds: JSONCoding.milliseconds($0.createdAt), id: $0.id) }
        let next = try newestFirst(index, in: box, after: after, batch: max(50, limit * 4), db: db)
        var found: [Item] = []
        var chunk: [PlaceHit] = []
        // Read only as many rows as the page still needs; more when some turn out to be
        // hidden or blocked.
        while found.count <= limit, let candidate = try next() {
            guard let distance = distance(candidate.point) else { continue }
            chunk.append((candidate.id, candidate.rowid, distance))
            if chunk.count == limit + 1 - found.count {
                found += try visible(chunk)
                chunk.removeAll(keepingCapacity: true)
            }
        }
        if found.count <= limit, !chunk.isEmpty { found += try visible(chunk) }
        return found
    }

    /// The posts among `ids` that `viewer` may see, by id.
    static func visiblePosts(ids: [String], viewer: String, db: Database) throws -> [String: PostRecord] {
        try visiblePosts(key: "p.id", in: JSONList.argument(ids), viewer: viewer, db: db)
    }

    /// The same for the posts a scan found, read by rowid (one lookup each, not two).
    static func visiblePosts(of hits: [PlaceHit], viewer: String, db: Database) throws -> [String: PostRecord] {
        let rowids = "[" + hits.map { String($0.rowid) }.joined(separator: ",") + "]"
        return try visiblePosts(key: "p.rowid", in: rowids, viewer: viewer, db: db)
    }

    /// `keys` is a JSON array. Records are read as the statement steps (a row read by
    /// column name looks its columns up by a table the cursor made once; a row copied out
    /// of it searches them, lowercasing each, for every one).
    private static func visiblePosts(
        key: String, in keys: String, viewer: String, db: Database
    ) throws -> [String: PostRecord] {
        // A kept statement: every nearby page reads its rows through here.
        let records = try PostRecord.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT p.* FROM post p
                    WHERE \(key) IN (SELECT value FROM json_each(:keys)) AND p.hidden_at IS NULL
                    AND p.media_state = 'ready' AND p.deleted_at IS NULL
                    AND \(BlockMirror.neitherBlocks(":viewer", "p.author_id"))
                    AND \(MuteMirror.notMuted(by: ":viewer", "p.author_id"))
                    """),
            arguments: ["viewer": viewer, "keys": keys])
        var found: [String: PostRecord] = [:]
        while let record = try records.next() { found[record.id] = record }
        return found
    }

    /// A place index the nearby scan reads: `latitude, longitude, <time>, id`, newest first.
    struct PlaceIndex: Sendable {
        let table: String
        let name: String
        /// Milliseconds since 1970, the order.
        let time: String
        /// The partial index's own condition, repeated so that SQLite may use it.
        let condition: String?
        /// A row's net votes (up minus down), if its table has votes.
        var votes: String?
        /// Indexes by cell (`column, time, id, latitude, longitude`, then the columns of
        /// `votes`: a cell's rows are read from its index alone), finest first.
        var grids: [Grid] = []

        struct Grid: Sendable {
            let cells: PlaceCells
            let column: String
            let name: String
        }

        static let posts = PlaceIndex(
            table: "post", name: "post_by_place", time: "created_ms",
            condition: "latitude IS NOT NULL AND media_id IS NOT NULL AND parent_id IS NULL",
            votes: "upvotes - downvotes",
            grids: [
                Grid(cells: PlaceCells(degrees: 0.01), column: "place_block", name: "post_by_block"),
                Grid(cells: PlaceCells(degrees: 0.05), column: "place_cell", name: "post_by_cell"),
                Grid(cells: PlaceCells(degrees: 0.5), column: "place_region", name: "post_by_region"),
            ])
        static let spots = PlaceIndex(table: "spot", name: "spot_by_place", time: "created_ms", condition: nil)
        static let votingChallenges = PlaceIndex(
            table: "challenge", name: "challenge_voting_by_place", time: "voting_ms",
            condition: "status = 'voting' AND latitude IS NOT NULL")
    }

    /// A row of a place index: the id, the rowid, its time, its place and its net votes (0
    /// where there are none).
    typealias PlaceRow = (id: String, rowid: Int64, milliseconds: Int64, point: Coordinate, votes: Int)

    /// What a place index's rows are read as (``PlaceRow``).
    private static func placeColumns(_ index: PlaceIndex) -> String {
        "id, rowid, \(index.time), latitude, longitude, \(index.votes ?? "0")"
    }

    private static func placeRow(_ row: Row) throws -> PlaceRow {
        (row[0], row[1], row[2], try Coordinate(latitude: row[3], longitude: row[4]), row[5])
    }

    /// The index's rows in the box after `after`, newest first, read as they are asked for.
    ///
    /// When a grid of the index covers the box with a few cells, each cell's index range is
    /// already newest first, and the next row is the newest of the cells' next rows: nothing
    /// is sorted and nothing past what is asked for is read. Otherwise (a box across the
    /// antimeridian, or too large for the coarsest grid) batches of `batch` rows come from the
    /// latitude band, sorted by time.
    static func newestFirst(
        _ index: PlaceIndex, in box: (latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>?),
        after: (milliseconds: Int64, id: String)?, batch: Int, db: Database
    ) throws -> () throws -> PlaceRow? {
        if let longitudes = box.longitudes,
            let (grid, cells) = index.grids.lazy.compactMap({ grid in
                grid.cells.cover(latitudes: box.latitudes, longitudes: longitudes).map { (grid, $0) }
            }).first
        {
            return try merged(index, grid: grid, cells: cells, box: (box.latitudes, longitudes), after: after, db: db)
        }
        var after = after
        var pending: [PlaceRow] = []
        var more = true
        return {
            if pending.isEmpty, more {
                let rows = try candidates(index, in: box, after: after, batch: batch, db: db)
                more = rows.count == batch
                after = rows.last.map { ($0.milliseconds, $0.id) }
                pending = rows.reversed()
            }
            return pending.popLast()
        }
    }

    /// The merge of `cells`' newest-first ranges of `grid`, each an open cursor.
    private static func merged(
        _ index: PlaceIndex, grid: PlaceIndex.Grid, cells: [Int],
        box: (latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>),
        after: (milliseconds: Int64, id: String)?, db: Database
    ) throws -> () throws -> PlaceRow? {
        var arguments: StatementArguments = [
            "minLat": box.latitudes.lowerBound, "maxLat": box.latitudes.upperBound,
            "minLon": box.longitudes.lowerBound, "maxLon": box.longitudes.upperBound,
        ]
        if let after {
            _ = arguments.append(contentsOf: ["afterMs": after.milliseconds, "afterID": after.id])
        }
        let sql = cellSQL(index, grid: grid, after: after != nil)
        // One statement per cell, as the cursors are open together; each kept by the connection
        // under its place in the merge (compiling twenty statements was a tenth of a page).
        let cursors = try cells.enumerated().map { position, cell in
            var cellArguments = arguments
            _ = cellArguments.append(contentsOf: ["cell": cell])
            return try Row.fetchCursor(
                db.cachedStatement(sql: sql + " -- cursor \(position)"), arguments: cellArguments)
        }
        func read(_ cursor: RowCursor) throws -> PlaceRow? {
            try cursor.next().map(placeRow)
        }
        var heads = try cursors.map(read)
        return {
            var newest: Int?
            for (position, head) in heads.enumerated() {
                guard let head else { continue }
                if let newest, let best = heads[newest], (best.milliseconds, best.id) > (head.milliseconds, head.id) {
                    continue
                }
                newest = position
            }
            guard let newest, let head = heads[newest] else { return nil }
            heads[newest] = try read(cursors[newest])
            return head
        }
    }

    /// One cell's rows of `grid` in the box (`:cell`, `:minLat` … `:maxLon`, and `:afterMs`,
    /// `:afterID` when `after`), newest first, read from the cell's index alone.
    static func cellSQL(_ index: PlaceIndex, grid: PlaceIndex.Grid, after: Bool) -> String {
        let time = index.time
        var conditions =
            [
                "\(grid.column) = :cell", "latitude BETWEEN :minLat AND :maxLat",
                "longitude BETWEEN :minLon AND :maxLon",
            ] + (index.condition.map { [$0] } ?? [])
        if after { conditions.append("\(time) <= :afterMs AND (\(time) < :afterMs OR id < :afterID)") }
        return """
            SELECT \(placeColumns(index)) FROM \(index.table) INDEXED BY \(grid.name)
            WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(time) DESC, id DESC
            """
    }

    /// One batch of the index's rows in the box, newest first, read from the latitude band.
    static func candidates(
        _ index: PlaceIndex, in box: (latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>?),
        after: (milliseconds: Int64, id: String)?, batch: Int, db: Database
    ) throws -> [PlaceRow] {
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
            db.cachedStatement(
                sql: """
                    SELECT \(placeColumns(index)) FROM \(index.table) INDEXED BY \(index.name)
                    WHERE \(conditions.joined(separator: " AND ")) ORDER BY \(time) DESC, id DESC LIMIT :batch
                    """), arguments: arguments
        ).map(placeRow)
    }
}
