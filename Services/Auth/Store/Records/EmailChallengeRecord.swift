import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `email_challenge`: a one-time code or link mailed to `email`, kept as digests
/// only. One live row per user and purpose, except `undo` (each change of address keeps its
/// own for a week). Used rows are deleted.
struct EmailChallengeRecord: ServiceRecord {
    static let databaseTableName = "email_challenge"

    var id: String
    var userId: String
    var purpose: EmailPurpose
    /// Where the mail went: the address to verify, the new address of a change, the old
    /// address an undo restores.
    var email: String
    /// HMAC of the six-digit code (``EmailCodes/codeDigest(_:challengeID:)``); nil for link-only.
    var codeHash: String?
    /// SHA-256 of the link's token; nil for code-only.
    var linkHash: String?
    /// A reset's tie to the password it replaces (``EmailCodes/passwordStamp(_:)``).
    var passwordStamp: String?
    var attempts = 0
    var createdAt: Date
    var expiresAt: Date

    enum Columns: String, ColumnExpression {
        case userId = "user_id"
        case purpose
        case linkHash = "link_hash"
        case expiresAt = "expires_at"
    }
}

extension DerivableRequest<EmailChallengeRecord> {
    /// The user's challenges of `purpose`.
    func of(_ userID: String, _ purpose: EmailPurpose) -> Self {
        filter(
            EmailChallengeRecord.Columns.userId == userID && EmailChallengeRecord.Columns.purpose == purpose.rawValue)
    }
}

extension EmailPurpose: DatabaseValueConvertible {}
