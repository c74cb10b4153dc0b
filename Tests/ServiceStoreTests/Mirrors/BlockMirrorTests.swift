import Contracts
import Foundation
import GRDB
import Synchronization
import Testing

@testable import ServiceHTTP
@testable import ServiceStore

@Suite struct BlockMirrorTests {
    static let (alice, bob, carol) = ("a", "b", "c")

    /// A database with the mirror, and a `post` table to filter by author.
    func database(
        _ migrations: (inout DatabaseMigrator) -> Void = { BlockMirror.registerMigration(&$0) }
    ) throws
        -> DatabaseQueue
    {
        let queue = try DatabaseQueue()
        var migrator = DatabaseMigrator()
        migrations(&migrator)
        try migrator.migrate(queue)
        return queue
    }

    func envelope<Event: DomainEvent>(_ event: Event) throws -> Data {
        try JSONCoding.encoder().encode(
            EventEnvelope(
                id: UUID(), type: Event.eventType, source: .moderation, occurredAt: Date(), payload: event))
    }

    @Test func blocksAreMirroredOnceAndSeenEitherWayRound() async throws {
        let pool = try Self.pool()
        defer { try? FileManager.default.removeItem(at: URL(fileURLWithPath: pool.path).deletingLastPathComponent()) }
        var inbox = EventInbox(clock: SystemClock())
        let afterBlock = Mutex<[String]>([])
        inbox.mirrorBlocks(onBlocked: { event, _ in afterBlock.withLock { $0.append(event.blockedId) } })

        let block = try envelope(UserBlocked(blockerId: Self.alice, blockedId: Self.bob))
        #expect(try await inbox.receive(block, from: .moderation, database: pool) == .applied)
        #expect(try await inbox.receive(block, from: .moderation, database: pool) == .duplicate)
        // Another `user.blocked` for the same pair (blocked again after an unblock, say) is harmless.
        _ = try await inbox.receive(
            try envelope(UserBlocked(blockerId: Self.alice, blockedId: Self.bob)), from: .moderation, database: pool)
        let (rows, aliceBob, bobAlice, aliceCarol) = try await pool.read { db in
            (
                try BlockMirrorRecord.fetchCount(db), try BlockMirror.isBlocked(Self.alice, Self.bob, in: db),
                try BlockMirror.isBlocked(Self.bob, Self.alice, in: db),
                try BlockMirror.isBlocked(Self.alice, Self.carol, in: db)
            )
        }
        #expect(rows == 1)
        #expect(aliceBob && bobAlice)
        #expect(!aliceCarol)
        #expect(afterBlock.withLock { $0 } == [Self.bob, Self.bob])

        _ = try await inbox.receive(
            try envelope(UserUnblocked(blockerId: Self.alice, blockedId: Self.bob)), from: .moderation, database: pool)
        #expect(try await pool.read { db in try BlockMirror.isBlocked(Self.bob, Self.alice, in: db) } == false)
    }

    @Test func theSQLFilterLeavesOutWhatEitherSideBlocked() throws {
        let queue = try database { migrator in
            BlockMirror.registerMigration(&migrator)
            migrator.registerMigration("test.posts") { db in
                try db.create(table: "post") { table in
                    table.column("id", .text).primaryKey()
                    table.column("author_id", .text).notNull()
                }
            }
        }
        try queue.write { db in
            for (id, author) in [("p1", Self.alice), ("p2", Self.bob), ("p3", Self.carol)] {
                try db.execute(sql: "INSERT INTO post (id, author_id) VALUES (?, ?)", arguments: [id, author])
            }
            try BlockMirror.apply(UserBlocked(blockerId: Self.alice, blockedId: Self.bob), in: db)
            try BlockMirror.apply(UserBlocked(blockerId: Self.carol, blockedId: Self.alice), in: db)
        }
        let visible = { (viewer: String) in
            try queue.read { db in
                try String.fetchAll(
                    db,
                    sql:
                        "SELECT id FROM post p WHERE \(BlockMirror.neitherBlocks(":viewer", "p.author_id")) ORDER BY id",
                    arguments: ["viewer": viewer])
            }
        }
        #expect(try visible(Self.alice) == ["p1"])  // Alice blocked Bob; Carol blocked Alice
        #expect(try visible(Self.bob) == ["p2", "p3"])
        #expect(try visible(Self.carol) == ["p2", "p3"])
    }

    @Test func aDeletedUsersBlocksAreForgotten() async throws {
        let pool = try Self.pool()
        defer { try? FileManager.default.removeItem(at: URL(fileURLWithPath: pool.path).deletingLastPathComponent()) }
        try await pool.write { db in
            try BlockMirror.apply(UserBlocked(blockerId: Self.alice, blockedId: Self.bob), in: db)
            try BlockMirror.apply(UserBlocked(blockerId: Self.carol, blockedId: Self.alice), in: db)
            try BlockMirror.apply(UserBlocked(blockerId: Self.bob, blockedId: Self.carol), in: db)
        }
        var inbox = EventInbox(clock: SystemClock())
        inbox.onUserDeleted { _, _ in }
        let deleted = try JSONCoding.encoder().encode(
            EventEnvelope(
                id: UUID(), type: UserDeleted.eventType, source: .auth, occurredAt: Date(),
                payload: UserDeleted(userId: Self.alice, requestedAt: Date())))
        #expect(try await inbox.receive(deleted, from: .auth, database: pool) == .applied)
        let left = try await pool.read { db in try BlockMirrorRecord.fetchAll(db) }
        #expect(left == [BlockMirrorRecord(blockerId: Self.bob, blockedId: Self.carol)])
    }

    @Test func aServicesOwnBlockTableMovesIntoTheMirror() throws {
        // A database as feed and streak left it before the kit had the mirror.
        let queue = try DatabaseQueue()
        var before = DatabaseMigrator()
        let legacy: (inout DatabaseMigrator) -> Void = { migrator in
            migrator.registerMigration("svc.v1") { db in
                try db.create(table: "block") { table in
                    table.column("blocker_id", .text).notNull()
                    table.column("blocked_id", .text).notNull()
                    table.primaryKey(["blocker_id", "blocked_id"])
                }
            }
        }
        legacy(&before)
        try before.migrate(queue)
        try queue.write { db in
            try db.execute(sql: "INSERT INTO block VALUES ('a', 'b'), ('c', 'a')")
        }
        var after = DatabaseMigrator()
        legacy(&after)
        BlockMirror.registerMigration(&after, movingRowsFrom: (table: "block", migration: "svc.v2.blocks"))
        try after.migrate(queue)
        let (legacyLeft, mirrored) = try queue.read { db in
            (try db.tableExists("block"), try BlockMirrorRecord.order(BlockMirrorRecord.Columns.blockerId).fetchAll(db))
        }
        #expect(!legacyLeft)
        #expect(
            mirrored == [
                BlockMirrorRecord(blockerId: "a", blockedId: "b"), BlockMirrorRecord(blockerId: "c", blockedId: "a"),
            ])
    }

    /// A service database with the kit's own tables (the inbox, idempotency keys) and the
    /// mirror, in a directory of its own.
    static func pool() throws -> DatabasePool {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "mirror-\(UUID().uuidString)/db.sqlite")
        return try ServiceDatabase.open(at: file) { BlockMirror.registerMigration(&$0) }
    }
}
