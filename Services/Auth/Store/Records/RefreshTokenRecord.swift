import Foundation
import GRDB

/// A row of `refresh_token`: the SHA-256 of a refresh token and what became of it. A token
/// is used once; `replacedBy` links it to the token it was rotated into.
struct RefreshTokenRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "refresh_token"

    var tokenHash: String
    var sessionID: String
    var issuedAt: Date
    var expiresAt: Date
    var usedAt: Date?
    var replacedBy: String?
    /// The child token, sealed with a key derived from this token (see ``RefreshTokenSeal``).
    var childSealed: Data? = nil

    enum CodingKeys: String, CodingKey {
        case tokenHash = "token_hash"
        case sessionID = "session_id"
        case issuedAt = "issued_at"
        case expiresAt = "expires_at"
        case usedAt = "used_at"
        case replacedBy = "replaced_by"
        case childSealed = "child_sealed"
    }
}
