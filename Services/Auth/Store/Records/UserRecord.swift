import Contracts
import Foundation
import GRDB

/// A row of `user`.
struct UserRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "user"

    var id: String
    /// Lowercased; unique. Nil for PIN customers.
    var email: String?
    /// Argon2id PHC string. Nil for accounts without a password (PIN customers).
    var passwordHash: String?
    var displayName: String
    var createdAt: Date
    var updatedAt: Date
    /// Set when the account was deleted; the row stays until every service has confirmed.
    var deletedAt: Date? = nil

    enum CodingKeys: String, CodingKey {
        case id, email
        case passwordHash = "password_hash"
        case displayName = "display_name"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
        case deletedAt = "deleted_at"
    }

    enum Columns {
        static let email = Column(CodingKeys.email)
        static let deletedAt = Column(CodingKeys.deletedAt)
    }

    func profile(roles: [RoleGrant]) -> UserProfile {
        UserProfile(id: id, email: email, displayName: displayName, createdAt: createdAt, roles: roles)
    }
}
