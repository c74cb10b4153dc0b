import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `phone_challenge`: a code sent and not yet checked (one per user; a new start
/// replaces it).
struct PhoneChallengeRecord: ServiceRecord {
    static let databaseTableName = "phone_challenge"

    var userId: String
    var phoneNumber: String
    /// HMAC of the code; nil when the provider (Twilio Verify) checks it.
    var codeHash: String?
    var expiresAt: Date
    var attempts: Int
    var createdAt: Date
}
