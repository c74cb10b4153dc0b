import Foundation
import GRDB

/// A row of `apple_account`: a Sign in with Apple identity (`sub`) and the user it signs in.
struct AppleAccountRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "apple_account"

    var sub: String
    var userID: String
    /// The address Apple shared (possibly a private relay address).
    var email: String?
    var isPrivateEmail: Bool
    /// The bundle id (Apple's `client_id`) the account signed in through.
    var clientID: String
    /// Apple's refresh token from the authorization-code exchange, for revocation.
    var refreshToken: String?
    var createdAt: Date
    var updatedAt: Date

    enum CodingKeys: String, CodingKey {
        case sub, email
        case userID = "user_id"
        case isPrivateEmail = "is_private_email"
        case clientID = "client_id"
        case refreshToken = "refresh_token"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }
}
