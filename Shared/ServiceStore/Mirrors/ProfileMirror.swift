import Contracts
import GRDB
import ServiceHTTP

/// A service's own copy of what lists show of people (username, display name, avatar, whether
/// the account is gone), kept from auth's `profile.changed` and, when the copy starts empty,
/// filled from auth's export (``MirrorFill``). Lists read it with ``profiles(_:in:)``; no list
/// asks auth per page. Used as the other mirrors are: ``registerMigration(_:)`` and
/// ``EventInbox/mirrorProfiles()``.
public enum ProfileMirror {
    /// `kit.profile-mirror.v1`: `kit_profile`, one row per user.
    public static func registerMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("kit.profile-mirror.v1") { db in
            try db.create(table: ProfileMirrorRecord.databaseTableName) { table in
                table.primaryKey("user_id", .text)
                table.column("username", .text)
                table.column("display_name", .text).notNull()
                table.column("avatar_media_id", .text)
                table.column("deleted", .boolean).notNull()
                table.column("revision", .integer).notNull()
            }
            try MirrorFill.registerState(in: db)
        }
    }

    /// Keeps what `event` says unless the copy already holds that revision or a later one;
    /// answers whether it did.
    @discardableResult
    public static func apply(_ event: ProfileChanged, in db: Database) throws -> Bool {
        try db.cachedStatement(
            sql: """
                INSERT INTO kit_profile (user_id, username, display_name, avatar_media_id, deleted, revision)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (user_id) DO UPDATE SET username = excluded.username,
                display_name = excluded.display_name, avatar_media_id = excluded.avatar_media_id,
                deleted = excluded.deleted, revision = excluded.revision
                WHERE excluded.revision > kit_profile.revision
                """
        ).execute(arguments: [
            event.userId, event.username, event.displayName, event.avatarMediaId, event.deleted, event.revision,
        ])
        return db.changesCount > 0
    }

    /// Marks the user's copy deleted for good (``EventInbox/onUserDeleted(erase:)``), whether
    /// auth's `profile.changed` saying so has arrived yet or not: nothing about the account
    /// is kept, and no later event or export page brings its name back.
    static func tombstone(userID: String, in db: Database) throws {
        guard try db.tableExists(ProfileMirrorRecord.databaseTableName) else { return }
        try ProfileMirrorRecord(
            userId: userID, username: nil, displayName: "", avatarMediaId: nil, deleted: true, revision: Int.max
        ).upsert(db)
    }

    /// Whether any of `ids` is a deleted account: events that other services sent before they
    /// learnt of a deletion can still arrive after it, and must not bring the account back.
    public static func anyDeleted(_ ids: some Collection<String>, in db: Database) throws -> Bool {
        let statement = try db.cachedStatement(
            sql:
                "SELECT EXISTS (SELECT 1 FROM kit_profile WHERE deleted AND user_id IN (SELECT value FROM json_each(?)))"
        )
        return try Bool.fetchOne(statement, arguments: [JSONList.argument(ids)]) ?? false
    }

    /// The copies of `ids` that exist, by id.
    public static func profiles(_ ids: some Collection<String>, in db: Database) throws -> [String: ProfileMirrorRecord]
    {
        guard !ids.isEmpty else { return [:] }
        let rows = try ProfileMirrorRecord.fetchCursor(
            db.cachedStatement(sql: "SELECT * FROM kit_profile WHERE user_id IN (SELECT value FROM json_each(?))"),
            arguments: [JSONList.argument(ids)])
        var found: [String: ProfileMirrorRecord] = [:]
        while let row = try rows.next() { found[row.userId] = row }
        return found
    }

    /// What auth's export pages hold, and where the fill finds them.
    public static let fill = MirrorFill.Source(name: "profiles", owner: .auth, path: "/internal/profiles")
}

extension EventInbox {
    /// Keeps the service's ``ProfileMirror`` from `profile.changed`.
    public mutating func mirrorProfiles() {
        on(ProfileChanged.self) { envelope, db in try ProfileMirror.apply(envelope.payload, in: db) }
    }
}
