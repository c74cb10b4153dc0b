import Foundation
import GRDB
import Testing

@testable import ServiceHTTP
@testable import ServiceStore

@Suite struct ServiceDatabaseTests {
    @Test func opensInWALWithFullSyncAndOwnerOnlyFiles() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("db-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("feed/feed.sqlite")
        let pool = try ServiceDatabase.open(at: file) { migrator in
            migrator.registerMigration("feed.v1") { db in
                try db.create(table: "post") { $0.column("id", .text).primaryKey() }
            }
        }
        try await pool.write { db in try db.execute(sql: "INSERT INTO post (id) VALUES ('p')") }
        // The writer's setting is the one that counts: it is the connection that commits.
        let (journal, synchronous, foreignKeys) = try await pool.writeWithoutTransaction { db in
            (
                try String.fetchOne(db, sql: "PRAGMA journal_mode"),
                try Int.fetchOne(db, sql: "PRAGMA synchronous"),
                try Int.fetchOne(db, sql: "PRAGMA foreign_keys")
            )
        }
        #expect(journal == "wal")
        #expect(synchronous == 2)  // FULL
        #expect(foreignKeys == 1)
        #expect(try FileSystem.permissions(of: file) == 0o600)
        #expect(try FileSystem.permissions(of: file.deletingLastPathComponent()) == 0o700)
        let applied = try await pool.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations")
        }
        #expect(
            applied == [
                "kit.outbox.v1", "kit.inbox.v1", "kit.idempotency.v1", "kit.jobs.v1", "kit.jobs.v2", "kit.outbox.v2",
                "feed.v1",
            ])
    }

    @Test func reopeningAppliesOnlyNewMigrationsAndKeepsData() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("db-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("x.sqlite")
        func v1(_ migrator: inout DatabaseMigrator) {
            migrator.registerMigration("x.v1") { db in try db.create(table: "t") { $0.column("a", .integer) } }
        }
        do {
            let pool = try ServiceDatabase.open(at: file, registerMigrations: v1)
            try await pool.write { db in try db.execute(sql: "INSERT INTO t (a) VALUES (1)") }
        }
        let pool = try ServiceDatabase.open(at: file) { migrator in
            v1(&migrator)
            migrator.registerMigration("x.v2") { db in try db.alter(table: "t") { $0.add(column: "b", .text) } }
        }
        #expect(try await pool.read { db in try Int.fetchOne(db, sql: "SELECT a FROM t") } == 1)
        #expect(try await pool.read { db in try db.columns(in: "t").map(\.name) } == ["a", "b"])
    }

    @Test func idempotencyKeysHeldByADeadProcessAreReleasedAtTheNextStart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("db-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("x.sqlite")
        do {
            let pool = try ServiceDatabase.open(at: file) { _ in }
            try await pool.write { db in
                for (key, status) in [("running", nil), ("answered", 201)] as [(String, Int?)] {
                    try db.execute(
                        sql: """
                            INSERT INTO kit_idempotency_key (scope, key, fingerprint, status, created_at, expires_at)
                            VALUES ('user:u', ?, 'f', ?, ?, ?)
                            """, arguments: [key, status, Date(), Date().addingTimeInterval(3600)])
                }
            }
        }
        let pool = try ServiceDatabase.open(at: file) { _ in }
        let keys = try await pool.read { db in try String.fetchAll(db, sql: "SELECT key FROM kit_idempotency_key") }
        #expect(keys == ["answered"])
    }

    @Test func eventsWaitingInTheFirstOutboxLayoutAreStillDeliveredAfterItsRebuild() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("db-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("x.sqlite")
        do {
            // A store written by a release before kit.outbox.v2: two events waiting, one of them
            // for two subscribers, one delivery retried once.
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let pool = try DatabasePool(path: file.path)
            try ServiceDatabase.migrator { _ in }.migrate(pool, upTo: "kit.jobs.v2")
            try await pool.write { db in
                for (id, type) in [("e1", "post.created"), ("e2", "user.blocked")] {
                    try db.execute(
                        sql: "INSERT INTO kit_outbox_event (id, type, body, occurred_at) VALUES (?, ?, x'7b7d', ?)",
                        arguments: [id, type, Date()])
                }
                try db.execute(
                    sql: """
                        INSERT INTO kit_outbox_delivery (event_seq, subscriber, attempts, next_attempt_at, last_error)
                        VALUES (1, 'auth', 1, '2026-12-05 10:00:00.000', 'refused'), (1, 'alerts', 0, '2026-12-05 10:00:00.000', NULL),
                            (2, 'alerts', 0, '2026-12-05 10:00:00.000', NULL)
                        """)
            }
        }
        let pool = try ServiceDatabase.open(at: file) { _ in }
        let (deliveries, schema, newSeq) = try await pool.write { db in
            (
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT e.id, d.subscriber, d.attempts, d.last_error FROM kit_outbox_delivery d
                        JOIN kit_outbox_event e ON e.seq = d.event_seq ORDER BY d.event_seq, d.subscriber
                        """
                ).map {
                    "\($0["id"] as String) \($0["subscriber"] as String) \($0["attempts"] as Int) \($0["last_error"] as String?)"
                },
                try String.fetchAll(
                    db, sql: "SELECT name FROM sqlite_schema WHERE tbl_name LIKE 'kit_outbox%' ORDER BY name"),
                try OutboxEventRecord(id: "e3", type: "post.created", body: Data("{}".utf8), occurredAt: Date())
                    .insertPrepared(db)
            )
        }
        #expect(
            deliveries == [
                "e1 alerts 0 nil", "e1 auth 1 Optional(\"refused\")", "e2 alerts 0 nil",
            ])
        // No index but the due one: the event's seq is its rowid, the delivery's key its table.
        #expect(schema == ["kit_outbox_delivery", "kit_outbox_delivery_due", "kit_outbox_event"])
        #expect(newSeq == 3)
        // The delivery still goes with its event.
        let left = try await pool.write { db in
            try db.execute(sql: "DELETE FROM kit_outbox_event WHERE id = 'e1'")
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM kit_outbox_delivery")
        }
        #expect(left == 1)
    }
}
