import GRDB
import ServiceStore

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

        // The queue: reports get a status and a weight (their reporter's trust), targets the
        // open reports' weight and the oldest open one; moderators' actions, appeals, the
        // reporters' record, and the audit log, which no statement may change or delete.
        migrator.registerMigration("moderation.v4.queue-actions-appeals") { db in
            try db.alter(table: "report") { table in
                table.add(column: "status", .text).notNull().defaults(to: "open")
                table.add(column: "weight", .double).notNull().defaults(to: 1.0)
                table.add(column: "resolved_at", .datetime)
                table.add(column: "action_id", .text)
            }
            try db.create(index: "report_by_reporter", on: "report", columns: ["reporter_id", "created_at"])
            try db.create(index: "report_by_target", on: "report", columns: ["target_type", "target_id", "status"])
            try db.alter(table: "moderation_target") { table in
                table.add(column: "owner_id", .text)
                table.add(column: "weight", .double).notNull().defaults(to: 0)
                table.add(column: "open_reports", .integer).notNull().defaults(to: 0)
                table.add(column: "first_open_at", .datetime)
                table.add(column: "removed_at", .datetime)
            }
            try db.execute(
                sql: """
                    UPDATE moderation_target SET
                        owner_id = (SELECT target_owner_id FROM report r WHERE r.target_type = moderation_target.target_type
                                    AND r.target_id = moderation_target.target_id LIMIT 1),
                        weight = report_count, open_reports = report_count,
                        first_open_at = (SELECT MIN(created_at) FROM report r
                                         WHERE r.target_type = moderation_target.target_type
                                         AND r.target_id = moderation_target.target_id)
                    """)
            try db.create(index: "moderation_target_queue", on: "moderation_target", columns: ["first_open_at"])
            try db.create(table: "reporter_trust") { table in
                table.column("user_id", .text).primaryKey()
                table.column("upheld", .integer).notNull()
                table.column("dismissed", .integer).notNull()
            }
            try db.create(table: "moderation_action") { table in
                table.column("id", .text).primaryKey()
                table.column("target_type", .text).notNull()
                table.column("target_id", .text).notNull()
                table.column("user_id", .text).notNull()
                table.column("moderator_id", .text).notNull()
                table.column("action", .text).notNull()
                table.column("reason", .text).notNull()
                table.column("ends_at", .datetime)
                table.column("created_at", .datetime).notNull()
                table.column("reversed_at", .datetime)
                // A suspension whose time ran out (the job that ends it ran).
                table.column("ended_at", .datetime)
            }
            try db.create(
                index: "moderation_action_by_user", on: "moderation_action", columns: ["user_id", "created_at"])
            try db.create(
                index: "moderation_action_by_target", on: "moderation_action", columns: ["target_type", "target_id"])
            try db.create(table: "appeal") { table in
                table.column("id", .text).primaryKey()
                table.column("action_id", .text).notNull().unique()
                table.column("user_id", .text).notNull()
                table.column("statement", .text).notNull()
                table.column("status", .text).notNull()
                table.column("decided_by", .text)
                table.column("decision_reason", .text)
                table.column("created_at", .datetime).notNull()
                table.column("decided_at", .datetime)
            }
            try db.create(index: "appeal_by_status", on: "appeal", columns: ["status", "created_at"])
            try db.create(table: "audit_entry") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("actor_id", .text).notNull()
                table.column("event", .text).notNull()
                table.column("target_type", .text)
                table.column("target_id", .text)
                table.column("user_id", .text)
                table.column("action_id", .text)
                table.column("reason", .text)
                table.column("created_at", .datetime).notNull()
            }
            try db.create(index: "audit_entry_by_user", on: "audit_entry", columns: ["user_id", "id"])
            try db.create(
                index: "audit_entry_by_target", on: "audit_entry", columns: ["target_type", "target_id", "id"])
            try db.execute(
                sql: """
                    CREATE TRIGGER audit_entry_no_update BEFORE UPDATE ON audit_entry
                    BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
                    CREATE TRIGGER audit_entry_no_delete BEFORE DELETE ON audit_entry
                    BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
                    """)
        }

        // The web console's signed-in moderators: a cookie's SHA-256, never the cookie itself.
        migrator.registerMigration("moderation.v5.console-sessions") { db in
            try db.create(table: "console_session") { table in
                table.column("token_hash", .text).primaryKey()
                table.column("user_id", .text).notNull()
                table.column("auth_session_id", .text).notNull()
                table.column("csrf_token", .text).notNull()
                table.column("created_at", .datetime).notNull()
                table.column("expires_at", .datetime).notNull()
            }
            try db.create(index: "console_session_by_expiry", on: "console_session", columns: ["expires_at"])
        }

        // The copies of what lists show of people and media (views).
        ProfileMirror.registerMigration(&migrator)
        MediaMirror.registerMigration(&migrator)
    }
}
