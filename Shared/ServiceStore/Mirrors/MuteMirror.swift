import Contracts
import GRDB
import ServiceHTTP

/// A service's own copy of who mutes whom, kept from moderation's `user.muted` and
/// `user.unmuted`: unlike a block it goes one way (the muter stops seeing the muted user; the
/// muted user notices nothing). Used as ``BlockMirror`` is: ``registerMigration(_:)``,
/// ``EventInbox/mirrorMutes()``, then ``notMuted(by:_:)`` in SQL or ``isMuted(_:by:in:)``.
public enum MuteMirror {
    /// `kit.mute-mirror.v1`: `kit_mute`, keyed by muter then muted (the question is always "does
    /// this viewer mute this author"), with the other way round for account deletion.
    public static func registerMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("kit.mute-mirror.v1") { db in
            try db.create(table: MuteMirrorRecord.databaseTableName) { table in
                table.column("muter_id", .text).notNull()
                table.column("muted_id", .text).notNull()
                table.primaryKey(["muter_id", "muted_id"])
            }
            try db.create(index: "kit_mute_by_muted", on: MuteMirrorRecord.databaseTableName, columns: ["muted_id"])
        }
    }

    /// SQL that is true unless `viewer` mutes `author` (each an SQL expression: `:viewer`,
    /// `p.author_id`).
    public static func notMuted(by viewer: String, _ author: String) -> String {
        "NOT EXISTS (SELECT 1 FROM kit_mute m WHERE m.muter_id = \(viewer) AND m.muted_id = \(author))"
    }

    /// Whether `viewer` mutes `author`.
    public static func isMuted(_ author: String, by viewer: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM kit_mute WHERE muter_id = ? AND muted_id = ?)"),
            arguments: [viewer, author]) ?? false
    }

    /// Those of `ids` whom `viewer` muted.
    public static func muted(
        by viewer: String, among ids: some Collection<String>, in db: Database
    ) throws
        -> Set<String>
    {
        try JSONList.selected(
            "SELECT muted_id FROM kit_mute WHERE muter_id = ?1 AND muted_id IN (SELECT value FROM json_each(?2))",
            viewer: viewer, among: ids, in: db)
    }

    /// Forgets every mute by or of `userID` (account deletion).
    public static func erase(userID: String, in db: Database) throws {
        typealias Columns = MuteMirrorRecord.Columns
        guard try db.tableExists(MuteMirrorRecord.databaseTableName) else { return }
        _ = try MuteMirrorRecord.filter(Columns.muterId == userID || Columns.mutedId == userID).deleteAll(db)
    }
}

extension EventInbox {
    /// Keeps the service's ``MuteMirror`` from `user.muted` and `user.unmuted`.
    public mutating func mirrorMutes() {
        on(UserMuted.self) { envelope, db in
            let event = envelope.payload
            try MuteMirrorRecord(muterId: event.muterId, mutedId: event.mutedId).insert(db, onConflict: .ignore)
        }
        on(UserUnmuted.self) { envelope, db in
            let event = envelope.payload
            _ = try MuteMirrorRecord.deleteOne(db, key: ["muter_id": event.muterId, "muted_id": event.mutedId])
        }
    }
}
