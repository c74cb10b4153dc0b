import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `revenuecat_event`: a RevenueCat event id already applied (and nothing personal),
/// so a redelivery changes nothing.
struct RevenueCatEventRecord: ServiceRecord {
    static let databaseTableName = "revenuecat_event"

    var id: String
    var type: String
    var receivedAt: Date
}
