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

        migrator.registerMigration("auth.v2.roles-tenants-pins") { db in
            // Apple and PIN users have no password, PIN customers no email: rebuild `user`
            // with both optional (SQLite cannot drop NOT NULL in place).
            try db.execute(
                sql: """
                    CREATE TABLE user_v2 (
                        id TEXT PRIMARY KEY NOT NULL,
                        email TEXT UNIQUE,
                        password_hash TEXT,
                        display_name TEXT NOT NULL,
                        created_at DATETIME NOT NULL,
                        updated_at DATETIME NOT NULL,
                        deleted_at DATETIME
                    );
                    INSERT INTO user_v2 (id, email, password_hash, display_name, created_at, updated_at)
                        SELECT id, email, password_hash, display_name, created_at, updated_at FROM user;
                    DROP TABLE user;
                    ALTER TABLE user_v2 RENAME TO user;
                    """)
            try db.alter(table: "session") { table in
                table.add(column: "limited", .boolean).notNull().defaults(to: false)
                table.add(column: "tenant_id", .text)
            }
            try db.alter(table: "refresh_token") { table in
                // The child token sealed with a key only the parent token's holder can derive:
                // a retry of the parent within the grace window gets the same child back.
                table.add(column: "child_sealed", .blob)
            }
            try db.create(table: "user_role") { table in
                table.column("user_id", .text).notNull().references("user", onDelete: .cascade)
                table.column("role", .text).notNull()
                // '' for deployment-wide roles, so the primary key treats them as equal.
                table.column("tenant_id", .text).notNull().defaults(to: "")
                table.primaryKey(["user_id", "role", "tenant_id"])
            }
            try db.create(table: "tenant") { table in
                table.column("id", .text).primaryKey()
                table.column("name", .text).notNull()
                table.column("api_key_hash", .text).notNull().unique()
                table.column("status", .text).notNull()
                table.column("created_at", .datetime).notNull()
                table.column("updated_at", .datetime).notNull()
            }
            try db.create(table: "customer") { table in
                table.column("user_id", .text).primaryKey().references("user", onDelete: .cascade)
                table.column("tenant_id", .text).notNull().references("tenant", onDelete: .cascade)
                table.column("customer_ref", .text).notNull()
                table.column("pin_hash", .text).notNull()
                table.column("duress_pin_hash", .text).notNull()
                table.column("created_at", .datetime).notNull()
                table.column("pins_updated_at", .datetime).notNull()
                table.uniqueKey(["tenant_id", "customer_ref"])
            }
            try db.create(table: "incident") { table in
                table.column("id", .text).primaryKey()
                table.column("tenant_id", .text).notNull().references("tenant", onDelete: .cascade)
                table.column("user_id", .text).notNull().references("user", onDelete: .cascade)
                table.column("customer_ref", .text).notNull()
                table.column("raised_at", .datetime).notNull()
                table.column("last_raised_at", .datetime).notNull()
                table.column("latitude", .double)
                table.column("longitude", .double)
                table.column("cleared_at", .datetime)
                table.column("cleared_by", .text)
            }
            try db.create(index: "incident_by_tenant", on: "incident", columns: ["tenant_id", "raised_at"])
            try db.execute(
                sql: "CREATE UNIQUE INDEX incident_open_per_user ON incident(user_id) WHERE cleared_at IS NULL")
            try db.create(table: "pin_attempt") { table in
                // `customer:<user id>` or `device:<hash>`; nothing here names a PIN.
                table.column("key", .text).primaryKey()
                table.column("failures", .integer).notNull()
                table.column("last_failure_at", .datetime).notNull()
                table.column("blocked_until", .datetime)
            }
            try db.create(table: "known_device") { table in
                table.column("user_id", .text).notNull().references("user", onDelete: .cascade)
                table.column("device_key", .text).notNull()
                table.column("last_seen_at", .datetime).notNull()
                table.primaryKey(["user_id", "device_key"])
            }
        }

        migrator.registerMigration("auth.v3.apple-deletions") { db in
            // One row per Apple account (`sub`) linked to a user. Apple's refresh token is kept
            // so that deleting the account can revoke it (Apple's /auth/revoke).
            try db.create(table: "apple_account") { table in
                table.column("sub", .text).primaryKey()
                table.column("user_id", .text).notNull().unique().references("user", onDelete: .cascade)
                table.column("email", .text)
                table.column("is_private_email", .boolean).notNull()
                table.column("client_id", .text).notNull()
                table.column("refresh_token", .text)
                table.column("created_at", .datetime).notNull()
                table.column("updated_at", .datetime).notNull()
            }
            // Outlives the user row: it is how the account holder follows the deletion.
            try db.create(table: "deletion") { table in
                table.column("id", .text).primaryKey()
                table.column("user_id", .text).notNull().unique()
                table.column("event_id", .text).notNull()
                table.column("requested_at", .datetime).notNull()
                table.column("completed_at", .datetime)
            }
            try db.create(
                index: "deletion_pending", on: "deletion", columns: ["requested_at"],
                condition: Column("completed_at") == nil)
        }
    }
}
