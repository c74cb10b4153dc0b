import Contracts
import GRDB
import ServiceHTTP

/// A service's own copy of what views show of media (kind, status, size, duration,
/// placeholder, which variants exist), kept from media's `media.described` and, when the copy
/// starts empty, filled from media's export (``MirrorFill``). Who may see a media object is not
/// here: the service that shows it decides, by what references it.
public enum MediaMirror {
    /// `kit.media-mirror.v1`: `kit_media`, one row per media object.
    public static func registerMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("kit.media-mirror.v1") { db in
            try db.create(table: MediaMirrorRecord.databaseTableName) { table in
                table.primaryKey("media_id", .text)
                table.column("owner_id", .text).notNull()
                table.column("kind", .text).notNull()
                table.column("status", .text).notNull()
                table.column("width", .integer)
                table.column("height", .integer)
                table.column("duration_ms", .integer)
                table.column("placeholder", .text)
                table.column("variants", .text).notNull()
                table.column("revision", .integer).notNull()
            }
            try MirrorFill.registerState(in: db)
        }
    }

    /// Keeps what `event` says unless the copy already holds that revision or a later one;
    /// answers whether it did.
    @discardableResult
    public static func apply(_ event: MediaDescribed, in db: Database) throws -> Bool {
        let record = MediaMirrorRecord(event)
        try db.cachedStatement(
            sql: """
                INSERT INTO kit_media (media_id, owner_id, kind, status, width, height, duration_ms, placeholder,
                variants, revision) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (media_id) DO UPDATE SET owner_id = excluded.owner_id, kind = excluded.kind,
                status = excluded.status, width = excluded.width, height = excluded.height,
                duration_ms = excluded.duration_ms, placeholder = excluded.placeholder, variants = excluded.variants,
                revision = excluded.revision
                WHERE excluded.revision > kit_media.revision
                """
        ).execute(arguments: [
            record.mediaId, record.ownerId, record.kind, record.status, record.width, record.height,
            record.durationMs, record.placeholder, record.variants, record.revision,
        ])
        return db.changesCount > 0
    }

    /// The copies of `ids` that exist, by id.
    public static func media(_ ids: some Collection<String>, in db: Database) throws -> [String: MediaMirrorRecord] {
        guard !ids.isEmpty else { return [:] }
        let rows = try MediaMirrorRecord.fetchCursor(
            db.cachedStatement(sql: "SELECT * FROM kit_media WHERE media_id IN (SELECT value FROM json_each(?))"),
            arguments: [JSONList.argument(ids)])
        var found: [String: MediaMirrorRecord] = [:]
        while let row = try rows.next() { found[row.mediaId] = row }
        return found
    }

    /// What media's export pages hold, and where the fill finds them.
    public static let fill = MirrorFill.Source(name: "media", owner: .media, path: "/internal/media/descriptions")
}

extension EventInbox {
    /// Keeps the service's ``MediaMirror`` from `media.described`.
    public mutating func mirrorMedia() {
        on(MediaDescribed.self) { envelope, db in try MediaMirror.apply(envelope.payload, in: db) }
    }
}
