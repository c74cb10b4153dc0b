import GRDB
import Testing

@testable import FeedService

@Suite struct FeedMigrationTests {
    /// `feed.v7.social-posts` rebuilds `post`: every row and every vote on it stays.
    @Test func rebuildingThePostTableKeepsEveryPostAndItsVotes() throws {
        let queue = try DatabaseQueue()
        var migrator = DatabaseMigrator()
        FeedStore.registerMigrations(&migrator)
        try migrator.migrate(queue, upTo: "feed.v6.follows")
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO post (id, author_id, media_id, caption, latitude, longitude, upvotes, downvotes,
                                      created_at, created_ms, media_state)
                    VALUES ('p1', 'alice', 'm1', 'pier', 48.85, 2.35, 1, 0, '2026-11-20 10:00:00.000', 1, 'ready');
                    INSERT INTO vote (post_id, user_id, value, updated_at)
                    VALUES ('p1', 'bob', 1, '2026-11-20 10:00:00.000');
                    """)
        }
        try migrator.migrate(queue)
        try queue.read { db in
            let post = try #require(try PostRecord.fetchOne(db, key: "p1"))
            #expect(post.mediaId == "m1" && post.caption == "pier" && post.latitude == 48.85 && post.upvotes == 1)
            #expect(post.likeCount == 0 && post.parentId == nil && post.deletedAt == nil)
            #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM vote WHERE post_id = 'p1'") == 1)
            #expect(try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").isEmpty)
            // Nearby still reads its index.
            let plan = try Row.fetchAll(
                db,
                sql: """
                    EXPLAIN QUERY PLAN SELECT id FROM post INDEXED BY post_by_place
                    WHERE latitude BETWEEN 48 AND 49 AND latitude IS NOT NULL AND media_id IS NOT NULL
                    AND parent_id IS NULL ORDER BY created_ms DESC
                    """)
            #expect(plan.contains { ($0["detail"] as String).contains("post_by_place") })
        }
    }

    /// Nearby reads a cell's candidates, votes and all, from the cell's index alone: the post
    /// row is never sought (a 1,000-post ranking read each row for its votes). SQLite's plan
    /// says `USING INDEX` either way (the partial index's own condition names columns it does
    /// not hold); the program shows it: no column is read through a cursor on the table.
    @Test func aCellsCandidatesAreReadFromItsIndexAlone() throws {
        let queue = try DatabaseQueue()
        var migrator = DatabaseMigrator()
        FeedStore.registerMigrations(&migrator)
        try migrator.migrate(queue)
        let grids = FeedStore.PlaceIndex.posts.grids
        #expect(grids.count == 3)
        try queue.read { db in
            let table = try #require(
                try Int.fetchOne(db, sql: "SELECT rootpage FROM sqlite_master WHERE name = 'post'"))
            for grid in grids {
                for after in [false, true] {
                    let sql = FeedStore.cellSQL(.posts, grid: grid, after: after)
                    let arguments: StatementArguments = [
                        "cell": 1, "minLat": 48.8, "maxLat": 48.9, "minLon": 2.3, "maxLon": 2.4, "afterMs": 1,
                        "afterID": "p",
                    ]
                    let program = try Row.fetchAll(db, sql: "EXPLAIN " + sql, arguments: arguments)
                        .map { (opcode: $0["opcode"] as String, p1: $0["p1"] as Int, p2: $0["p2"] as Int) }
                    let tableCursors = Set(program.filter { $0.opcode == "OpenRead" && $0.p2 == table }.map(\.p1))
                    let read = program.filter { $0.opcode == "Column" }.map(\.p1)
                    #expect(!read.isEmpty)
                    #expect(read.allSatisfy { !tableCursors.contains($0) }, "\(grid.name): \(program)")
                }
            }
        }
    }
}
