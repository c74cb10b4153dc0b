import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `released_username`: a name its user gave up, held from everyone else until
/// `heldUntil` (``UsernameRules``).
struct ReleasedUsernameRecord: ServiceRecord {
    static let databaseTableName = "released_username"

    var usernameKey: String
    var userId: String
    var heldUntil: Date
}
