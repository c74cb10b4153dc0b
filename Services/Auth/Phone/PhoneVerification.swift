import AsyncHTTPClient
import Crypto
import Foundation
import GRDB
import HTTPTypes
import NIOCore
import NIOHTTP1
import ServiceKit

/// Who sends and checks one-time codes for phone numbers.
protocol PhoneVerificationProvider: Sendable {
    /// Sends a code to `phone`; returns what to store to check it later (nil when the provider
    /// keeps the code itself).
    func start(phone: String, userID: String, now: Date, in store: AuthStore) async throws -> String?
    /// Whether `code` is right for `phone`, given what ``start`` stored.
    func check(phone: String, code: String, userID: String, stored: String?) async throws -> Bool
}

/// The default: Pinhole makes a 6-digit code, keeps only its HMAC, and "sends" it by writing
/// the text to the `sms_outbox` table, where an operator's own SMS gateway picks it up.
struct LocalCodeProvider: PhoneVerificationProvider {
    let pepper: SymmetricKey
    let entropy: any Entropy

    func start(phone: String, userID: String, now: Date, in store: AuthStore) async throws -> String? {
        let value = entropy.bytes(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % 1_000_000
        let code = String(format: "%06u", value)
        try await store.queueSMS(
            id: entropy.uuid().uuidString.lowercased(), userID: userID, phone: phone,
            body: "Your verification code is \(code). It expires in 10 minutes.", now: now)
        return digest(phone: phone, code: code, userID: userID)
    }

    func check(phone: String, code: String, userID: String, stored: String?) async throws -> Bool {
        guard let stored else { return false }
        let presented = Data(digest(phone: phone, code: code, userID: userID).utf8)
        return zip(presented, Data(stored.utf8)).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
            && presented.count == stored.utf8.count
    }

    private func digest(phone: String, code: String, userID: String) -> String {
        Hex.encode(HMAC<SHA256>.authenticationCode(for: Data("\(userID)\u{0}\(phone)\u{0}\(code)".utf8), using: pepper))
    }
}

/// Twilio Verify: Twilio makes, sends and checks the code.
/// `POST {baseUrl}/v2/Services/{serviceSid}/Verifications` and `/VerificationCheck`, with
/// the account SID and auth token as HTTP basic credentials.
struct TwilioVerifyProvider: PhoneVerificationProvider {
    let baseURL: String
    let accountSID: String
    let authToken: String
    let serviceSID: String
    let http: HTTPClient

    func start(phone: String, userID: String, now: Date, in store: AuthStore) async throws -> String? {
        let response = try await post("Verifications", ["To": phone, "Channel": "sms"])
        guard (200..<300).contains(response.status.code) else {
            if response.status == .badRequest {
                throw ServiceError.validation("The SMS provider refused this phone number.")
            }
            throw ServiceError(.upstreamUnavailable, "The SMS provider answered \(response.status.code).")
        }
        return nil
    }

    func check(phone: String, code: String, userID: String, stored: String?) async throws -> Bool {
        let response = try await post("VerificationCheck", ["To": phone, "Code": code])
        switch response.status.code {
        case 200:
            struct Check: Decodable { var status: String }
            return (try? JSONDecoder().decode(Check.self, from: Data(response.body.readableBytesView)))?.status
                == "approved"
        case 404: return false  // Twilio: no pending verification (expired or already approved)
        default: throw ServiceError(.upstreamUnavailable, "The SMS provider answered \(response.status.code).")
        }
    }

    private func post(_ endpoint: String, _ fields: [String: String]) async throws -> InternalResponse {
        let credentials = Data("\(accountSID):\(authToken)".utf8).base64EncodedString()
        return try await FormPost.send(
            fields, to: "\(baseURL)/v2/Services/\(serviceSID)/\(endpoint)", authorization: "Basic \(credentials)",
            provider: "The SMS provider", http: http)
    }
}

/// Phone verification settings (`auth.phone.*`, `auth.twilio.*`).
struct PhoneSettings: Sendable {
    var codeTTL: TimeInterval = 600
    var maxAttempts = 5
    var startsPerHour = 5
    /// Set to use Twilio Verify instead of the SMS outbox.
    var twilio: (baseURL: String, accountSID: String, authToken: String, serviceSID: String)?
}

extension AuthStore {
    func queueSMS(id: String, userID: String, phone: String, body: String, now: Date) async throws {
        try await database.write { db in
            try db.execute(
                sql: "INSERT INTO sms_outbox (id, user_id, phone_number, body, created_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [id, userID, phone, body, now])
        }
    }

    /// How many codes the user asked for since `since`.
    func phoneStarts(userID: String, since: Date) async throws -> Int {
        try await database.read { db in
            try Int.fetchOne(
                db, sql: "SELECT COUNT(*) FROM phone_challenge_start WHERE user_id = ? AND started_at > ?",
                arguments: [userID, since]) ?? 0
        }
    }

    /// Replaces the user's challenge with a new one.
    func saveChallenge(_ challenge: PhoneChallengeRecord) async throws {
        try await database.write { db in
            try challenge.save(db)
            try db.execute(
                sql: "INSERT INTO phone_challenge_start (user_id, started_at) VALUES (?, ?)",
                arguments: [challenge.userID, challenge.createdAt])
        }
    }

    /// Counts one attempt against the user's live challenge for `phone` and returns it, or
    /// nil when there is none (expired, another number, or out of attempts).
    func spendAttempt(userID: String, phone: String, maxAttempts: Int, now: Date) async throws -> PhoneChallengeRecord?
    {
        try await database.write { db in
            guard var challenge = try PhoneChallengeRecord.fetchOne(db, key: userID), challenge.phoneNumber == phone,
                challenge.expiresAt > now, challenge.attempts < maxAttempts
            else { return nil }
            challenge.attempts += 1
            try challenge.update(db)
            return challenge
        }
    }

    /// Records the verified number and drops the challenge.
    func verifyPhone(userID: String, phone: String, now: Date) async throws -> PhoneNumberRecord {
        try await database.write { db in
            let record = PhoneNumberRecord(userID: userID, phoneNumber: phone, verifiedAt: now)
            try record.save(db)
            try db.execute(sql: "DELETE FROM phone_challenge WHERE user_id = ?", arguments: [userID])
            return record
        }
    }

    func verifiedPhone(userID: String) async throws -> PhoneNumberRecord? {
        try await database.read { db in try PhoneNumberRecord.fetchOne(db, key: userID) }
    }
}
