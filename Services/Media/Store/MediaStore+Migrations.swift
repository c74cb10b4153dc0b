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
    }
}
