import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `known_device`: a device a customer signed in on successfully, which someone
/// else's failed guesses cannot lock out (see ``PinThrottle``).
struct KnownDeviceRecord: ServiceRecord {
    static let databaseTableName = "known_device"

    var userId: String
    var deviceKey: String
    var lastSeenAt: Date
}
