import GRDB
import ServiceKit

extension StreakStore {
    /// Append-only; never edit a migration that has shipped.
    static func registerMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("streak.v1.friends-streaks-snaps") { db in
            try db.create(table: "friend_request") { table in
                table.column("id", .text).primaryKey()
                table.column("from_user_id", .text).notNull()
                table.column("to_user_id", .text).notNull()
                table.column("status", .text).notNull()
                table.column("created_at", .datetime).notNull()
                table.column("responded_at", .datetime)
            }
            try db.create(index: "friend_request_to", on: "friend_request", columns: ["to_user_id", "status"])
            try db.create(index: "friend_request_from", on: "friend_request", columns: ["from_user_id", "status"])
            try db.create(table: "streak") { table in
                table.column("id", .text).primaryKey()
                table.column("user_a", .text).notNull()
                table.column("user_b", .text).notNull().indexed()
                table.column("count", .integer).notNull().defaults(to: 0)
                table.column("longest_count", .integer).notNull().defaults(to: 0)
                table.column("last_completed_date", .text)
                table.column("status", .text).notNull()
                table.column("broken_reason", .text)
                table.column("created_at", .datetime).notNull()
                table.uniqueKey(["user_a", "user_b"])
            }
            try db.create(table: "snap") { table in
                table.column("id", .text).primaryKey()
                table.column("user_id", .text).notNull()
                table.column("media_id", .text).notNull()
                table.column("local_date", .text).notNull()
                table.column("time_zone", .text).notNull()
                table.column("created_at", .datetime).notNull()
                table.uniqueKey(["user_id", "local_date"])
            }
            // A local copy of moderation's blocks, fed by events.
            try db.create(table: "block") { table in
                table.column("blocker_id", .text).notNull()
                table.column("blocked_id", .text).notNull()
                table.primaryKey(["blocker_id", "blocked_id"])
            }
        }

        migrator.registerMigration("streak.v2.recovery-tokens") { db in
            // A ledger: +n per purchase (id = the purchase id, so one credit per purchase),
            // later -1 per use and +1 per milestone. The balance is the sum.
            try db.create(table: "recovery_token") { table in
                table.column("id", .text).primaryKey()
                table.column("user_id", .text).notNull().indexed()
                table.column("delta", .integer).notNull()
                table.column("reason", .text).notNull()
                table.column("created_at", .datetime).notNull()
            }
        }

        // Blocks move to the kit's one copy (`kit_block`, the same in every service that keeps one).
        BlockMirror.registerMigration(
            &migrator, movingRowsFrom: (table: "block", migration: "streak.v3.blocks-to-kit-mirror"))
    }
}
