import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `pin_attempt`: failed PIN sign-ins counted against one key (`customer:<hash>` or
/// `device:<hash>`; nothing here names a PIN), see ``PinThrottle``.
struct PinAttemptRecord: ServiceRecord {
    static let databaseTableName = "pin_attempt"

    var key: String
    var failures: Int
    var lastFailureAt: Date
    var blockedUntil: Date?
}
