import GRDB

extension ModerationStore {
    /// Append-only; never edit a migration that has shipped.
    static func registerMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("moderation.v1.reports-blocks") { db in
            try db.create(table: "report") { table in
                table.column("id", .text).primaryKey()
                table.column("reporter_id", .text).notNull()
                table.column("target_type", .text).notNull()
                table.column("target_id", .text).notNull()
                table.column("target_owner_id", .text).notNull()
                table.column("reason", .text).notNull()
                table.column("details", .text)
                table.column("created_at", .datetime).notNull()
                table.uniqueKey(["reporter_id", "target_type", "target_id"])
            }
            try db.create(table: "moderation_target") { table in
                table.column("target_type", .text).notNull()
                table.column("target_id", .text).notNull()
                table.column("report_count", .integer).notNull()
                table.column("hidden_at", .datetime)
                table.primaryKey(["target_type", "target_id"])
            }
            try db.create(table: "block") { table in
                table.column("blocker_id", .text).notNull()
                table.column("blocked_id", .text).notNull()
                table.column("created_at", .datetime).notNull()
                table.primaryKey(["blocker_id", "blocked_id"])
            }
        }
        migrator.registerMigration("moderation.v2.keyword-mutes") { db in
            try db.create(table: "keyword_mute") { table in
                table.column("id", .text).primaryKey()
                table.column("user_id", .text).notNull()
                table.column("phrase", .text).notNull()
                // ``MutedWords/key(_:)``: one mute per phrase whatever its case and accents.
                table.column("phrase_key", .text).notNull()
                table.column("until", .datetime)
                table.column("created_at", .datetime).notNull()
                table.uniqueKey(["user_id", "phrase_key"])
            }
            // Each user's revision of their mutes, carried by `keyword_mutes.changed`.
            try db.create(table: "keyword_mute_revision") { table in
                table.column("user_id", .text).primaryKey()
                table.column("revision", .integer).notNull()
            }
        }

        // Who mutes whom (`/v1/mutes/users`); the second index serves account deletion.
        migrator.registerMigration("moderation.v3.user-mutes") { db in
            try db.create(table: "user_mute") { table in
                table.column("muter_id", .text).notNull()
                table.column("muted_id", .text).notNull()
                table.column("created_at", .datetime).notNull()
                table.primaryKey(["muter_id", "muted_id"])
            }
            try db.create(index: "user_mute_by_muted", on: "user_mute", columns: ["muted_id"])
        }
    }
}
