import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Phone verification: challenges, the codes' outbox, verified numbers.
struct PhoneStore: Sendable {
    let database: DatabasePool

    /// "Sends" a text by writing it where an operator's SMS gateway picks it up.
    func queueSMS(_ message: SmsOutboxRecord) async throws {
        try await database.tracedWrite { db in try message.insert(db) }
    }

    /// How many codes the user asked for since `since`.
    func starts(userID: String, since: Date) async throws -> Int {
        try await database.tracedRead { db in
            try PhoneChallengeStartRecord.filter(
                PhoneChallengeStartRecord.Columns.userId == userID
                    && PhoneChallengeStartRecord.Columns.startedAt > since
            ).fetchCount(db)
        }
    }

    /// Replaces the user's challenge with a new one.
    func saveChallenge(_ challenge: PhoneChallengeRecord) async throws {
        try await database.tracedWrite { db in
            try challenge.save(db)
            try PhoneChallengeStartRecord(userId: challenge.userId, startedAt: challenge.createdAt).insert(db)
        }
    }

    /// Counts one attempt against the user's live challenge for `phone` and returns it, or
    /// nil when there is none (expired, another number, or out of attempts).
    func spendAttempt(userID: String, phone: String, maxAttempts: Int, now: Date) async throws -> PhoneChallengeRecord?
    {
        try await database.tracedWrite { db in
            guard var challenge = try PhoneChallengeRecord.fetchOne(db, key: userID), challenge.phoneNumber == phone,
                challenge.expiresAt > now, challenge.attempts < maxAttempts
            else { return nil }
            challenge.attempts += 1
            try challenge.update(db)
            return challenge
        }
    }

    /// Records the verified number and drops the challenge.
    func verify(userID: String, phone: String, now: Date) async throws -> PhoneNumberRecord {
        try await database.tracedWrite { db in
            let record = PhoneNumberRecord(userId: userID, phoneNumber: phone, verifiedAt: now)
            try record.save(db)
            try PhoneChallengeRecord.deleteOne(db, key: userID)
            return record
        }
    }

    func verifiedPhone(userID: String) async throws -> PhoneNumberRecord? {
        try await database.tracedRead { db in try PhoneNumberRecord.fetchOne(db, key: userID) }
    }
}
