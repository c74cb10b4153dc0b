import GRDB

extension MediaStore {
    /// Append-only; never edit a migration that has shipped.
    static func registerMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("media.v1.media") { db in
            try db.create(table: "media") { table in
                table.column("id", .text).primaryKey()
                table.column("owner_id", .text).notNull().indexed()
                table.column("content_type", .text).notNull()
                table.column("byte_size", .integer).notNull()
                table.column("sha256", .text).notNull().indexed()
                table.column("status", .text).notNull()
                table.column("visibility", .text).notNull()
                table.column("created_at", .datetime).notNull()
            }
        }

        migrator.registerMigration("media.v2.uploads") { db in
            // A tus upload: its bytes grow in `<blobDir>/uploads/<id>` (a name the server made),
            // `offset` is what is durably on disk; at completion it becomes a media row.
            try db.create(table: "upload") { table in
                table.column("id", .text).primaryKey()
                table.column("owner_id", .text).notNull().indexed()
                table.column("purpose", .text).notNull()
                table.column("filename", .text)
                table.column("filetype", .text)
                table.column("expected_sha256", .text)
                table.column("length", .integer).notNull()
                table.column("offset", .integer).notNull()
                table.column("state", .text).notNull()
                table.column("rejected_reason", .text)
                table.column("media_id", .text)
                table.column("created_at", .datetime).notNull()
                table.column("expires_at", .datetime).notNull().indexed()
            }
        }

        migrator.registerMigration("media.v3.video-facts") { db in
            try db.alter(table: "media") { table in
                table.add(column: "duration_ms", .integer)
                table.add(column: "width", .integer)
                table.add(column: "height", .integer)
                table.add(column: "video_codec", .text)
            }
        }

        migrator.registerMigration("media.v4.evidence") { db in
            try db.create(table: "evidence") { table in
                table.column("id", .text).primaryKey()
                table.column("tenant_id", .text).notNull().indexed()
                table.column("owner_id", .text).notNull().indexed()
                table.column("incident_id", .text).notNull()
                table.column("key", .text).notNull().unique()
                table.column("kind", .text)
                table.column("content_type", .text).notNull()
                table.column("max_bytes", .integer).notNull()
                table.column("size", .integer)
                table.column("sha256", .text)
                table.column("created_at", .datetime).notNull()
                table.column("uploaded_at", .datetime)
                table.column("finalized_at", .datetime)
            }
            // Append-only: rows are inserted, never updated or deleted (triggers refuse both).
            try db.create(table: "custody_entry") { table in
                table.column("evidence_id", .text).notNull().references("evidence")
                table.column("sequence", .integer).notNull()
                table.column("action", .text).notNull()
                table.column("actor_id", .text).notNull()
                table.column("at", .datetime).notNull()
                table.column("previous_hash", .text).notNull()
                table.column("hash", .text).notNull()
                table.primaryKey(["evidence_id", "sequence"])
            }
            try db.execute(
                sql: """
                    CREATE TRIGGER custody_entry_no_update BEFORE UPDATE ON custody_entry
                    BEGIN SELECT RAISE(ABORT, 'custody entries are append-only'); END;
                    CREATE TRIGGER custody_entry_no_delete BEFORE DELETE ON custody_entry
                    BEGIN SELECT RAISE(ABORT, 'custody entries are append-only'); END;
                    """)
        }

        migrator.registerMigration("media.v5.processing") { db in
            try db.alter(table: "media") { table in
                table.add(column: "display_sha256", .text)
                table.add(column: "display_type", .text)
                table.add(column: "display_size", .integer)
                table.add(column: "thumbnail_sha256", .text)
                table.add(column: "thumbnail_size", .integer)
                table.add(column: "poster_sha256", .text)
                table.add(column: "poster_size", .integer)
                table.add(column: "rejected_reason", .text)
                table.add(column: "processed_at", .datetime)
            }
            try db.create(
                index: "media_processing", on: "media", columns: ["status"], condition: Column("status") == "processing"
            )
            // Who references a media object (from `media.attached`), so `media.ready` and
            // `media.rejected` reach exactly those services.
            try db.create(table: "media_reference") { table in
                table.column("media_id", .text).notNull().references("media", onDelete: .cascade)
                table.column("service", .text).notNull()
                table.column("reference_type", .text).notNull()
                table.column("reference_id", .text).notNull()
                table.primaryKey(["media_id", "service", "reference_type", "reference_id"])
            }
        }

        migrator.registerMigration("media.v6.readers") { db in
            // Who besides the owner may read a private object (`media.attached` readers).
            try db.create(table: "media_reader") { table in
                table.column("media_id", .text).notNull().references("media", onDelete: .cascade)
                table.column("user_id", .text).notNull().indexed()
                table.primaryKey(["media_id", "user_id"])
            }
        }

        // Screening's verdict on a media it held for a moderator.
        migrator.registerMigration("media.v7.screening") { db in
            try db.alter(table: "media") { table in
                table.add(column: "screening_score", .double)
                table.add(column: "screening_labels", .text)
            }
        }

        // What views show of each media object, and the revision of its `media.described`.
        migrator.registerMigration("media.v8.descriptions") { db in
            try db.alter(table: "media") { table in
                table.add(column: "placeholder", .text)
                table.add(column: "description_revision", .integer).notNull().defaults(to: 0)
            }
        }

        // Evidence under auth's duress incidents: the session each piece was collected in, and
        // the incident each duress session signed in under.
        migrator.registerMigration("media.v9.incident-evidence") { db in
            try db.alter(table: "evidence") { table in table.add(column: "session_id", .text) }
            try db.create(index: "evidence_by_session", on: "evidence", columns: ["session_id", "created_at"])
            try db.create(table: "incident_session") { table in
                table.column("session_id", .text).primaryKey()
                table.column("incident_id", .text).notNull()
                table.column("tenant_id", .text).notNull()
            }
            try db.create(
                index: "incident_session_by_incident", on: "incident_session", columns: ["tenant_id", "incident_id"])
        }
    }
}
