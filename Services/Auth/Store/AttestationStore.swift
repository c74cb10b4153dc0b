import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// App Attest: one-time challenges per session, registered keys, and each session's
/// last valid assertion.
struct AttestationStore: Sendable {
    let database: DatabasePool

    /// Most live challenges a session holds; asking for more drops its oldest.
    static let challengesPerSession = 5

    /// Records a challenge for `sessionID`, dropping expired ones and the session's oldest
    /// beyond ``challengesPerSession``.
    func issue(_ challenge: AttestationChallengeRecord, now: Date) async throws {
        try await database.tracedWrite { db in
            typealias Columns = AttestationChallengeRecord.Columns
            try AttestationChallengeRecord.filter(Columns.expiresAt <= now).deleteAll(db)
            let live = try AttestationChallengeRecord.filter(Columns.sessionId == challenge.sessionId)
                .order(Columns.expiresAt.desc).fetchAll(db)
            for old in live.dropFirst(Self.challengesPerSession - 1) { try old.delete(db) }
            try challenge.insert(db)
        }
    }

    /// Uses up `challenge`: true when it was `sessionID`'s and had not expired. Used or not, it
    /// cannot be presented again.
    func take(_ challenge: String, sessionID: String, now: Date) async throws -> Bool {
        try await database.tracedWrite { db in
            guard let record = try AttestationChallengeRecord.fetchOne(db, key: challenge) else { return false }
            try record.delete(db)
            return record.sessionId == sessionID && record.expiresAt > now
        }
    }

    /// Stores a newly attested key; nil when the key id is registered already.
    func register(_ key: AppAttestKeyRecord) async throws -> AppAttestKeyRecord? {
        try await database.tracedWrite { db in
            try key.insert(db, onConflict: .ignore)
            return db.changesCount > 0 ? key : nil
        }
    }

    /// `userID`'s key `keyID` (another's: nil).
    func key(_ keyID: String, of userID: String) async throws -> AppAttestKeyRecord? {
        try await database.tracedRead { db in
            try AppAttestKeyRecord.fetchOne(db, key: keyID).flatMap { $0.userId == userID ? $0 : nil }
        }
    }

    enum AssertionOutcome {
        case accepted(Date)
        /// The counter is not above the last one accepted: a replay.
        case replayed
        case unknownKey
    }

    /// Accepts an assertion with `counter` made by `keyID` in `sessionID`, if the counter went
    /// up: the key keeps it and the session is attested as of `now`.
    func accept(
        counter: UInt32, keyID: String, userID: String, sessionID: String, now: Date
    ) async throws -> AssertionOutcome {
        try await database.tracedWrite { db in
            guard var key = try AppAttestKeyRecord.fetchOne(db, key: keyID), key.userId == userID else {
                return .unknownKey
            }
            guard Int64(counter) > key.counter else { return .replayed }
            key.counter = Int64(counter)
            key.lastAssertedAt = now
            try key.update(db)
            try db.execute(
                sql: "UPDATE session SET attested_at = ? WHERE id = ? AND user_id = ?",
                arguments: [now, sessionID, userID])
            return .accepted(now)
        }
    }

    /// The user's keys, newest first.
    func keys(of userID: String) async throws -> [AppAttestKeyRecord] {
        try await database.tracedRead { db in
            try AppAttestKeyRecord.filter(Column("user_id") == userID).order(Column("created_at").desc).fetchAll(db)
        }
    }
}
