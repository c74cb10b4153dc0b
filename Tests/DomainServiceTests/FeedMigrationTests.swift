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
}
