import Foundation
import GRDB
import ServiceHTTP

/// A row of `kit_inbox`: an event this service has applied, so a redelivery has no second effect.
struct InboxEventRecord: ServiceRecord {
    static let databaseTableName = "kit_inbox"

    var eventId: String
    var type: String
    var source: String
    var appliedAt: Date
}
