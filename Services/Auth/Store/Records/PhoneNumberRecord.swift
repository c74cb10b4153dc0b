import Foundation
import GRDB

/// A row of `phone_number`: the phone number a user has verified (one per user).
struct PhoneNumberRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "phone_number"

    var userID: String
    /// E.164.
    var phoneNumber: String
    var verifiedAt: Date

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case phoneNumber = "phone_number"
        case verifiedAt = "verified_at"
    }
}

/// A row of `phone_challenge`: a code sent and not yet checked (one per user; a new start
/// replaces it).
struct PhoneChallengeRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "phone_challenge"

    var userID: String
    var phoneNumber: String
    var codeHash: String?
    var expiresAt: Date
    var attempts: Int
    var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case userID = "user_id"
        case phoneNumber = "phone_number"
        case codeHash = "code_hash"
        case expiresAt = "expires_at"
        case attempts
        case createdAt = "created_at"
    }
}
