import Contracts
import Foundation
import GRDB

/// A row of `user`.
struct UserRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "user"

    var id: String
    /// Lowercased; unique.
    var email: String
    /// Argon2id PHC string.
    var passwordHash: String
    var displayName: String
    var createdAt: Date
    var updatedAt: Date

    enum CodingKeys: String, CodingKey {
        case id, email
        case passwordHash = "password_hash"
        case displayName = "display_name"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    enum Columns {
        static let email = Column(CodingKeys.email)
    }

    var profile: UserProfile {
        UserProfile(id: id, email: email, displayName: displayName, createdAt: createdAt)
    }
}
