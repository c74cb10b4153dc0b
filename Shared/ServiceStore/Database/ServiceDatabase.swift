import Foundation
import GRDB
import ServiceHTTP

/// Opens a service's one SQLite database: a GRDB `DatabasePool` in WAL mode with
/// `synchronous=FULL` (a commit is on disk before it is acknowledged), foreign keys on, a
/// 16 MiB page cache per connection, and every migration applied before the caller goes on
/// to open its port.
///
/// The kit's own tables (outbox, inbox, idempotency keys, jobs) are migrated first, under names
/// starting with `kit.`; the service's migrations follow. Migrations are append-only and
/// named: never edit one that has shipped.
public enum ServiceDatabase {
    /// Opens (creating if needed) the database at `file` and migrates it.
    public static func open(
        at file: URL, registerMigrations: (inout DatabaseMigrator) -> Void
    ) throws -> DatabasePool {
        try FileSystem.makeOwnerOnlyDirectory(file.deletingLastPathComponent())
        var configuration = Configuration()
        configuration.busyMode = .callback(retryEveryMillisecond)
        configuration.foreignKeysEnabled = true
        configuration.prepareDatabase { db in
            // 16 MiB of pages per connection (SQLite's default is 2 MiB): a job pass over a
            // large store otherwise reads most index pages back from the kernel every time.
            try db.execute(sql: "PRAGMA cache_size = -16384")
        }
        let pool = try DatabasePool(path: file.path, configuration: configuration)
        try pool.syncEveryCommit()
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: file.path + suffix) {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path + suffix)
        }
        let migrator = migrator(registerMigrations)
        let unknown = try pool.read { db in
            try migrator.appliedIdentifiers(db).subtracting(migrator.migrations).sorted()
        }
        guard unknown.isEmpty else {
            throw ConfigurationError(
                "\(file.path) was written by a newer release (migrations this build does not know: "
                    + "\(unknown.joined(separator: ", "))); run that release or a newer one")
        }
        try migrator.migrate(pool)
        try releaseAbandonedClaims(in: pool)
        return pool
    }

    /// How a connection waits for a lock another process holds (Litestream's checkpoint holds
    /// the write lock for 10-50 ms, twice a second under load): it retries every millisecond,
    /// for up to ten seconds. SQLite's own busy timeout sleeps 1, 2, 5, 10, 15, 20, 25... ms
    /// between tries, so a write that meets a 20 ms lock waits until 33 ms, and every write
    /// queued behind it in the pool's writer waits too.
    static func retryEveryMillisecond(_ numberOfTries: Int) -> Bool {
        guard numberOfTries < 10_000 else { return false }
        usleep(1_000)
        return true
    }

    /// The kit's migrations, then the service's: what ``open(at:registerMigrations:)`` applies.
    public static func migrator(_ registerMigrations: (inout DatabaseMigrator) -> Void) -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        registerKitMigrations(&migrator)
        registerMigrations(&migrator)
        return migrator
    }

    /// A service owns its database alone, so at boot no request of it can be running: an
    /// `Idempotency-Key` still marked in progress was held by a process that died. Releasing it
    /// lets the client's retry run now instead of waiting for the claim to go stale.
    static func releaseAbandonedClaims(in pool: DatabasePool) throws {
        _ = try pool.write { db in
            try IdempotencyKeyRecord.filter(IdempotencyKeyRecord.Columns.status == nil).deleteAll(db)
        }
    }

    static func registerKitMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("kit.outbox.v1") { db in
            try db.create(table: "kit_outbox_event") { table in
                table.autoIncrementedPrimaryKey("seq")
                table.column("id", .text).notNull().unique()
                table.column("type", .text).notNull()
                table.column("body", .blob).notNull()
                table.column("occurred_at", .datetime).notNull()
            }
            try db.create(table: "kit_outbox_delivery") { table in
                table.column("event_seq", .integer).notNull()
                    .references("kit_outbox_event", column: "seq", onDelete: .cascade)
                table.column("subscriber", .text).notNull()
                table.column("attempts", .integer).notNull().defaults(to: 0)
                table.column("next_attempt_at", .datetime).notNull()
                table.column("last_error", .text)
                table.column("dead_at", .datetime)
                table.primaryKey(["event_seq", "subscriber"])
            }
            try db.create(
                index: "kit_outbox_delivery_due", on: "kit_outbox_delivery",
                columns: ["subscriber", "dead_at", "event_seq"])
        }
        migrator.registerMigration("kit.inbox.v1") { db in
            try db.create(table: "kit_inbox") { table in
                table.column("event_id", .text).primaryKey()
                table.column("type", .text).notNull()
                table.column("source", .text).notNull()
                table.column("applied_at", .datetime).notNull()
            }
        }
        migrator.registerMigration("kit.idempotency.v1") { db in
            try db.create(table: "kit_idempotency_key") { table in
                table.column("scope", .text).notNull()
                table.column("key", .text).notNull()
                table.column("fingerprint", .text).notNull()
                table.column("status", .integer)
                table.column("headers", .blob)
                table.column("body", .blob)
                table.column("created_at", .datetime).notNull()
                table.column("expires_at", .datetime).notNull()
                table.primaryKey(["scope", "key"])
            }
            try db.create(index: "kit_idempotency_key_expiry", on: "kit_idempotency_key", columns: ["expires_at"])
        }
        migrator.registerMigration("kit.jobs.v1") { db in
            try db.create(table: "kit_job") { table in
                table.autoIncrementedPrimaryKey("seq")
                table.column("kind", .text).notNull()
                table.column("key", .text).notNull()
                table.column("payload", .blob).notNull()
                table.column("due_at", .datetime).notNull()
                table.column("attempts", .integer).notNull().defaults(to: 0)
                table.column("last_error", .text)
                table.column("failed_at", .datetime)
                table.column("created_at", .datetime).notNull()
                table.uniqueKey(["kind", "key"])
            }
            try db.create(index: "kit_job_due", on: "kit_job", columns: ["failed_at", "due_at"])
        }
        // The due index carries the kind, so the claim filters kinds and `/metrics` counts
        // due jobs from the index alone: the gauges used to read the whole table every second,
        // most of a core at rest with a million streak deadlines waiting. `seq` comes before
        // the kind so the index keeps the claim's order (due time, then seq): a million
        // deadlines due at the same local 22:00 are not sorted again for every claim.
        migrator.registerMigration("kit.jobs.v2") { db in
            try db.drop(index: "kit_job_due")
            try db.create(index: "kit_job_due", on: "kit_job", columns: ["failed_at", "due_at", "seq", "kind"])
        }
        // Fewer pages per event: a write that enqueues an event, and the delivery that removes
        // it, each changed six B-tree pages (the event, its unique id index, AUTOINCREMENT's
        // `sqlite_sequence`, the delivery, its primary key index, the due index) and now change
        // three. The delivery is keyed by its primary key alone (WITHOUT ROWID); the event's
        // `seq` is its rowid, which only grows while any event waits (a free number is one no
        // delivery refers to any more); nothing looks an event up by its id. Every page a
        // write changes goes to the WAL, to the replica and through each checkpoint.
        migrator.registerMigration("kit.outbox.v2") { db in
            try db.create(table: "kit_outbox_event_v2") { table in
                table.primaryKey("seq", .integer)
                table.column("id", .text).notNull()
                table.column("type", .text).notNull()
                table.column("body", .blob).notNull()
                table.column("occurred_at", .datetime).notNull()
            }
            // The v1 columns written out again, not shared with kit.outbox.v1: a migration that
            // has shipped must build the same tables forever, whatever a helper becomes.
            try db.create(table: "kit_outbox_delivery_v2", options: [.withoutRowID]) { table in
                table.column("event_seq", .integer).notNull()
                    .references("kit_outbox_event", column: "seq", onDelete: .cascade)
                table.column("subscriber", .text).notNull()
                table.column("attempts", .integer).notNull().defaults(to: 0)
                table.column("next_attempt_at", .datetime).notNull()
                table.column("last_error", .text)
                table.column("dead_at", .datetime)
                table.primaryKey(["event_seq", "subscriber"])
            }
            try db.execute(
                sql: """
                    INSERT INTO kit_outbox_event_v2 (seq, id, type, body, occurred_at)
                    SELECT seq, id, type, body, occurred_at FROM kit_outbox_event;
                    INSERT INTO kit_outbox_delivery_v2
                        (event_seq, subscriber, attempts, next_attempt_at, last_error, dead_at)
                    SELECT event_seq, subscriber, attempts, next_attempt_at, last_error, dead_at
                    FROM kit_outbox_delivery;
                    DROP TABLE kit_outbox_delivery;
                    DROP TABLE kit_outbox_event;
                    ALTER TABLE kit_outbox_event_v2 RENAME TO kit_outbox_event;
                    ALTER TABLE kit_outbox_delivery_v2 RENAME TO kit_outbox_delivery;
                    """)
            try db.create(
                index: "kit_outbox_delivery_due", on: "kit_outbox_delivery",
                columns: ["subscriber", "dead_at", "event_seq"])
        }
    }
}
