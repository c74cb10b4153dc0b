import GRDB
import ServiceHTTP
import ServiceStore

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

        migrator.registerMigration("auth.v4.entitlements-phones") { db in
            // RevenueCat event ids already applied; nothing else, so nothing personal.
            try db.create(table: "revenuecat_event") { table in
                table.column("id", .text).primaryKey()
                table.column("type", .text).notNull()
                table.column("received_at", .datetime).notNull()
            }
            try db.create(table: "subscription") { table in
                table.column("user_id", .text).notNull().references("user", onDelete: .cascade)
                table.column("product_id", .text).notNull()
                table.column("status", .text).notNull()
                table.column("expires_at", .datetime)
                // The newest RevenueCat event applied, so an older one arriving late changes nothing.
                table.column("event_at", .datetime).notNull()
                table.column("updated_at", .datetime).notNull()
                table.primaryKey(["user_id", "product_id"])
            }
            try db.create(table: "phone_number") { table in
                table.column("user_id", .text).primaryKey().references("user", onDelete: .cascade)
                table.column("phone_number", .text).notNull()
                table.column("verified_at", .datetime).notNull()
            }
            try db.create(table: "phone_challenge") { table in
                table.column("user_id", .text).primaryKey().references("user", onDelete: .cascade)
                table.column("phone_number", .text).notNull()
                // HMAC of the code (nil when the provider, such as Twilio Verify, checks it).
                table.column("code_hash", .text)
                table.column("expires_at", .datetime).notNull()
                table.column("attempts", .integer).notNull().defaults(to: 0)
                table.column("created_at", .datetime).notNull()
            }
            try db.create(table: "phone_challenge_start") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("user_id", .text).notNull().references("user", onDelete: .cascade)
                table.column("started_at", .datetime).notNull()
            }
            try db.create(
                index: "phone_challenge_start_by_user", on: "phone_challenge_start", columns: ["user_id", "started_at"])
            // What the default SMS sender "sends": a row an operator's own gateway can pick up.
            try db.create(table: "sms_outbox") { table in
                table.column("id", .text).primaryKey()
                table.column("user_id", .text).notNull().references("user", onDelete: .cascade)
                table.column("phone_number", .text).notNull()
                table.column("body", .text).notNull()
                table.column("created_at", .datetime).notNull()
            }
        }

        migrator.registerMigration("auth.v5.user-search") { db in
            // The words of app users' display names (not PIN customers'), for friend search.
            try db.create(table: "user_name_word", options: .withoutRowID) { table in
                table.column("word", .text).notNull()
                table.column("user_id", .text).notNull().references("user", onDelete: .cascade)
                table.primaryKey(["word", "user_id"])
            }
            try db.create(index: "user_name_word_by_user", on: "user_name_word", columns: ["user_id"])
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, display_name FROM user
                    WHERE deleted_at IS NULL AND id NOT IN (SELECT user_id FROM customer)
                    """)
            for row in rows {
                let id: String = row["id"]
                for word in NameSearch.words(of: row["display_name"]) {
                    try db.execute(
                        sql: "INSERT OR IGNORE INTO user_name_word (word, user_id) VALUES (?, ?)",
                        arguments: [word, id])
                }
            }
        }

        migrator.registerMigration("auth.v6.usernames") { db in
            try db.alter(table: "user") { table in
                table.add(column: "username", .text)
                table.add(column: "username_key", .text)
                table.add(column: "username_changed_at", .datetime)
            }
            try db.execute(
                sql: "CREATE UNIQUE INDEX user_by_username ON user(username_key) WHERE username_key IS NOT NULL")
            // Names given up, held from everyone else until `held_until`.
            try db.create(table: "released_username") { table in
                table.column("username_key", .text).primaryKey()
                table.column("user_id", .text).notNull().references("user", onDelete: .cascade)
                table.column("held_until", .datetime).notNull()
            }
        }

        // A copy of moderation's blocks: a profile is not shown across one.
        BlockMirror.registerMigration(&migrator)

        migrator.registerMigration("auth.v7.bio") { db in
            try db.alter(table: "user") { table in table.add(column: "bio", .text) }
        }

        // Feed's counts of each user, for profiles (`profile.counts_changed`).
        migrator.registerMigration("auth.v8.profile-counts") { db in
            try db.create(table: "profile_count") { table in
                table.column("user_id", .text).primaryKey().references("user", onDelete: .cascade)
                table.column("followers", .integer).notNull()
                table.column("following", .integer).notNull()
                table.column("posts", .integer).notNull()
                table.column("revision", .integer).notNull()
            }
        }

        // The photo a user shows as their avatar (`PUT /v1/me/avatar`).
        migrator.registerMigration("auth.v9.avatars") { db in
            try db.alter(table: "user") { table in table.add(column: "avatar_media_id", .text) }
        }

        // A copy of moderation's mutes of people: people search leaves them out.
        MuteMirror.registerMigration(&migrator)

        // People search by SQLite FTS5 over usernames and display names (replacing the word
        // table): `user_search` gives each app user a lasting integer key for their FTS row.
        migrator.registerMigration("auth.v10.people-fts") { db in
            try db.create(table: "user_search") { table in
                table.autoIncrementedPrimaryKey("id")
                table.column("user_id", .text).notNull().unique().references("user", onDelete: .cascade)
            }
            try db.execute(
                sql: """
                    CREATE VIRTUAL TABLE user_fts USING fts5(
                        username, name, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
                    DROP TABLE user_name_word;
                    """)
            let users = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, username, display_name FROM user
                    WHERE deleted_at IS NULL AND id NOT IN (SELECT user_id FROM customer) ORDER BY created_at
                    """)
            for user in users {
                try UserSearchRecord.index(
                    userID: user["id"], username: user["username"], displayName: user["display_name"], in: db)
            }
        }

        // Feed's challenge standing beside its counts, for profiles.
        migrator.registerMigration("auth.v11.profile-challenges") { db in
            try db.alter(table: "profile_count") { table in table.add(column: "challenges", .jsonText) }
        }

        // App Attest: registered keys, one-time challenges, and when each session last
        // made a valid assertion.
        migrator.registerMigration("auth.v12.app-attest") { db in
            try db.create(table: "app_attest_key") { table in
                table.column("key_id", .text).primaryKey()
                table.column("user_id", .text).notNull().references("user", onDelete: .cascade)
                table.column("session_id", .text).notNull()
                table.column("app_id", .text).notNull()
                table.column("environment", .text).notNull()
                table.column("public_key", .blob).notNull()
                table.column("receipt", .blob).notNull()
                table.column("counter", .integer).notNull()
                table.column("created_at", .datetime).notNull()
                table.column("last_asserted_at", .datetime)
            }
            try db.create(index: "app_attest_key_by_user", on: "app_attest_key", columns: ["user_id"])
            try db.create(table: "attestation_challenge") { table in
                table.column("challenge", .text).primaryKey()
                table.column("session_id", .text).notNull().references("session", onDelete: .cascade)
                table.column("expires_at", .datetime).notNull()
            }
            try db.create(
                index: "attestation_challenge_by_session", on: "attestation_challenge", columns: ["session_id"])
            try db.alter(table: "session") { table in table.add(column: "attested_at", .datetime) }
        }

        // What moderation's actions set on an account: a suspension (writes refused until
        // `suspended_until`) and a ban (sessions ended, sign-ins refused), each with the
        // action that set it so an appeal lifts exactly that one.
        migrator.registerMigration("auth.v13.account-restrictions") { db in
            try db.create(table: "account_restriction") { table in
                table.column("user_id", .text).primaryKey().references("user", onDelete: .cascade)
                table.column("suspended_until", .datetime)
                table.column("suspension_action_id", .text)
                table.column("banned_at", .datetime)
                table.column("ban_action_id", .text)
                table.column("ban_reason", .text)
            }
        }

        // The revision of each user's last `profile.changed`.
        migrator.registerMigration("auth.v14.profile-revisions") { db in
            try db.alter(table: "user") { table in
                table.add(column: "profile_revision", .integer).notNull().defaults(to: 0)
            }
        }

        // Email: when each address was proven, the one-time codes and links mailed for it
        // (verification, password reset, a change of address and its undo, sign-in codes; only
        // their digests), and the mail asked for per address, which the limits count.
        migrator.registerMigration("auth.v15.email") { db in
            try db.alter(table: "user") { table in table.add(column: "email_verified_at", .datetime) }
            try db.create(table: "email_challenge") { table in
                table.column("id", .text).primaryKey()
                table.column("user_id", .text).notNull().references("user", onDelete: .cascade)
                table.column("purpose", .text).notNull()
                table.column("email", .text).notNull()
                table.column("code_hash", .text)
                table.column("link_hash", .text).unique()
                table.column("password_stamp", .text)
                table.column("attempts", .integer).notNull().defaults(to: 0)
                table.column("created_at", .datetime).notNull()
                table.column("expires_at", .datetime).notNull()
            }
            try db.create(index: "email_challenge_by_user", on: "email_challenge", columns: ["user_id", "purpose"])
            try db.create(table: "mail_request") { table in
                table.column("address", .text).notNull()
                table.column("purpose", .text).notNull()
                table.column("requested_at", .datetime).notNull()
            }
            try db.create(index: "mail_request_by_address", on: "mail_request", columns: ["address", "requested_at"])
        }

        // The copies of what lists show of people and media (views).
        MediaMirror.registerMigration(&migrator)
    }
}
