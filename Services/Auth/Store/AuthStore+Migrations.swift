import GRDB

extension AuthStore {
    /// Append-only; never edit a migration that has shipped.
    static func registerMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("auth.v1.users-sessions") { db in
            try db.create(table: "user") { table in
                table.column("id", .text).primaryKey()
                table.column("email", .text).notNull().unique()
                table.column("password_hash", .text).notNull()
                table.column("display_name", .text).notNull()
                table.column("created_at", .datetime).notNull()
                table.column("updated_at", .datetime).notNull()
            }
            try db.create(table: "session") { table in
                table.column("id", .text).primaryKey()
                table.column("user_id", .text).notNull().indexed()
                    .references("user", onDelete: .cascade)
                table.column("created_at", .datetime).notNull()
                table.column("last_used_at", .datetime).notNull()
                table.column("revoked_at", .datetime)
                table.column("ip_address", .text)
                table.column("user_agent", .text)
                table.column("device_platform", .text)
                table.column("device_version", .text)
            }
            try db.create(table: "refresh_token") { table in
                table.column("token_hash", .text).primaryKey()
                table.column("session_id", .text).notNull().indexed()
                    .references("session", onDelete: .cascade)
                table.column("issued_at", .datetime).notNull()
                table.column("expires_at", .datetime).notNull().indexed()
                table.column("used_at", .datetime)
                table.column("replaced_by", .text)
            }
        }
    }
}
