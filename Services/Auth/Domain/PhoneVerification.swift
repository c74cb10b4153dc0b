import Crypto
import Foundation
import ServiceHTTP

/// Who sends and checks one-time codes for phone numbers.
protocol PhoneVerificationProvider: Sendable {
    /// Sends a code to `phone`; returns what to store to check it later (nil when the provider
    /// keeps the code itself).
    func start(phone: String, userID: String, now: Date, in store: PhoneStore) async throws -> String?
    /// Whether `code` is right for `phone`, given what ``start`` stored.
    func check(phone: String, code: String, userID: String, stored: String?) async throws -> Bool
}

/// The default: Pinhole makes a 6-digit code, keeps only its HMAC, and "sends" it by writing
/// the text to the `sms_outbox` table, where an operator's own SMS gateway picks it up.
struct LocalCodeProvider: PhoneVerificationProvider {
    let pepper: SymmetricKey
    let entropy: any Entropy

    func start(phone: String, userID: String, now: Date, in store: PhoneStore) async throws -> String? {
        let value = entropy.bytes(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } % 1_000_000
        let code = String(format: "%06u", value)
        try await store.queueSMS(
            SmsOutboxRecord(
                id: entropy.uuid().uuidString.lowercased(), userId: userID, phoneNumber: phone,
                body: "Your verification code is \(code). It expires in 10 minutes.", createdAt: now))
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
