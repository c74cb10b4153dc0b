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
        let (journal, synchronous, foreignKeys) = try await pool.read { db in
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
            applied == ["kit.outbox.v1", "kit.inbox.v1", "kit.idempotency.v1", "kit.jobs.v1", "kit.jobs.v2", "feed.v1"])
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
}
