import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Keyword mutes, and the event that gives feed each user's whole list after every change.
extension ModerationStore {
    /// How many phrases one user may mute.
    static let maxKeywordMutes = 200

    /// Adds a mute (201), or answers the one that already mutes the same phrase (200; a new
    /// `until` replaces the old).
    func mute(_ record: KeywordMuteRecord, now: Date) async throws -> (KeywordMuteRecord, created: Bool) {
        try await database.tracedWrite { [outbox] db in
            let mine = KeywordMuteRecord.filter(KeywordMuteRecord.Columns.userId == record.userId)
            if var existing = try mine.filter(sql: "phrase_key = ?", arguments: [record.phraseKey]).fetchOne(db) {
                guard existing.until != record.until else { return (existing, false) }
                existing.until = record.until
                try existing.update(db)
                try Self.publishMutes(of: record.userId, now: now, outbox: outbox, in: db)
                return (existing, false)
            }
            guard try mine.fetchCount(db) < Self.maxKeywordMutes else {
                throw ServiceError(.conflict, "At most \(Self.maxKeywordMutes) muted words; remove one first.")
            }
            try record.insert(db)
            try Self.publishMutes(of: record.userId, now: now, outbox: outbox, in: db)
            return (record, true)
        }
    }

    /// Removes one of the user's mutes; false when they have none with that id.
    func unmute(id: String, of user: String, now: Date) async throws -> Bool {
        try await database.tracedWrite { [outbox] db in
            guard
                try KeywordMuteRecord.filter(key: id).filter(KeywordMuteRecord.Columns.userId == user).deleteAll(db)
                    > 0
            else { return false }
            try Self.publishMutes(of: user, now: now, outbox: outbox, in: db)
            return true
        }
    }

    /// The user's mutes that still hold, oldest first.
    func keywordMutes(of user: String, now: Date) async throws -> [KeywordMuteRecord] {
        try await database.tracedRead { db in try Self.current(of: user, now: now, in: db) }
    }

    static func current(of user: String, now: Date, in db: Database) throws -> [KeywordMuteRecord] {
        try KeywordMuteRecord.filter(KeywordMuteRecord.Columns.userId == user)
            .filter(sql: "until IS NULL OR until > ?", arguments: [now])
            .order(sql: "created_at, id").fetchAll(db)
    }

    /// Writes `keyword_mutes.changed` with the user's whole list and its next revision.
    static func publishMutes(of user: String, now: Date, outbox: Outbox, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO keyword_mute_revision (user_id, revision) VALUES (?, 1)
                ON CONFLICT (user_id) DO UPDATE SET revision = revision + 1
                """, arguments: [user])
        let revision = try KeywordMuteRevisionRecord.fetchOne(db, key: user)?.revision ?? 1
        try outbox.enqueue(
            KeywordMutesChanged(
                userId: user,
                mutes: try current(of: user, now: now, in: db).map { MutedPhrase(phrase: $0.phrase, until: $0.until) },
                revision: revision), in: db)
    }
}
