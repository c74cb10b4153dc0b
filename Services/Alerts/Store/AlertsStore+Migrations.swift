import GRDB

extension AlertsStore {
    /// Append-only; never edit a migration that has shipped.
    static func registerMigrations(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("alerts.v1.notifications") { db in
            try db.create(table: "notification") { table in
                table.column("id", .text).primaryKey()
                table.column("user_id", .text).notNull()
                table.column("type", .text).notNull()
                table.column("title", .text).notNull()
                table.column("body", .text).notNull()
                table.column("data", .text).notNull()
                table.column("source_event_id", .text).notNull().unique()
                table.column("created_at", .datetime).notNull()
                table.column("read_at", .datetime)
            }
            try db.create(index: "notification_by_user", on: "notification", columns: ["user_id", "created_at", "id"])
            try db.create(
                index: "notification_unread", on: "notification", columns: ["user_id"],
                condition: Column("read_at") == nil)
        }
    }
}
