import Contracts
import Foundation
import GRDB
import ServiceHTTP

/// A service's own copy of each user's keyword mutes, kept from moderation's
/// `keyword_mutes.changed` (one row per user, the newest revision wins): feed leaves muted posts
/// out of what it shows, alerts keeps muted direct messages from their recipient. Used as
/// ``MuteMirror`` is: ``registerMigration(_:)``, ``EventInbox/mirrorKeywordMutes()``, then
/// ``mutedWords(of:at:in:)``.
public enum KeywordMuteMirror {
    /// `kit.keyword-mute-mirror.v1`: `muted_words` (feed made the same table before the kit
    /// kept it, so it is made only where it is missing).
    public static func registerMigration(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("kit.keyword-mute-mirror.v1") { db in
            try db.create(table: MutedWordsRecord.databaseTableName, ifNotExists: true) { table in
                table.column("user_id", .text).primaryKey()
                table.column("revision", .integer).notNull()
                table.column("mutes", .jsonText).notNull()
            }
        }
    }

    /// `keyword_mutes.changed`: keeps the list unless a later revision is already here.
    public static func apply(_ event: KeywordMutesChanged, in db: Database) throws {
        if let stored = try MutedWordsRecord.fetchOne(db, key: event.userId), stored.revision >= event.revision {
            return
        }
        try MutedWordsRecord(userId: event.userId, revision: event.revision, mutes: event.mutes).upsert(db)
    }

    /// What `user` has muted at `now` (nothing: empty).
    public static func mutedWords(of user: String, at now: Date, in db: Database) throws -> MutedWords {
        // A kept statement: every page of posts asks (a request built afresh cost more than
        // the lookup).
        try MutedWordsRecord.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM \(MutedWordsRecord.databaseTableName) WHERE user_id = ?"),
            arguments: [user])?.holding(at: now) ?? MutedWords([])
    }

    /// Forgets `userID`'s mutes (account deletion).
    public static func erase(userID: String, in db: Database) throws {
        try MutedWordsRecord.deleteOne(db, key: userID)
    }
}

extension EventInbox {
    /// Keeps the service's ``KeywordMuteMirror`` from `keyword_mutes.changed`.
    public mutating func mirrorKeywordMutes() {
        on(KeywordMutesChanged.self) { envelope, db in try KeywordMuteMirror.apply(envelope.payload, in: db) }
    }
}
