import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `refresh_token`: the SHA-256 of a refresh token and what became of it. A token
/// is used once; `replacedBy` links it to the token it was rotated into.
struct RefreshTokenRecord: ServiceRecord {
    static let databaseTableName = "refresh_token"

    var tokenHash: String
    var sessionId: String
    var issuedAt: Date
    var expiresAt: Date
    var usedAt: Date?
    var replacedBy: String?
    /// The child token, sealed with a key derived from this token (see ``RefreshTokenSeal``).
    var childSealed: Data? = nil
}
