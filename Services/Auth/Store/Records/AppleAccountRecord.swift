import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `apple_account`: a Sign in with Apple identity (`sub`) and the user it signs in.
struct AppleAccountRecord: ServiceRecord {
    static let databaseTableName = "apple_account"

    var sub: String
    var userId: String
    /// The address Apple shared (possibly a private relay address).
    var email: String?
    var isPrivateEmail: Bool
    /// The bundle id (Apple's `client_id`) the account signed in through.
    var clientId: String
    /// Apple's refresh token from the authorization-code exchange, for revocation.
    var refreshToken: String?
    var createdAt: Date
    var updatedAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case userId = "user_id"
    }
}
