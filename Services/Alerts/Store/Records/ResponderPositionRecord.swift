import Foundation
import GRDB
import ServiceKit

/// A row of `responder_position`: where a tenant's user last was, from their last
/// `GET /v1/alerts/nearby`. Goes with the account.
struct ResponderPositionRecord: ServiceRecord {
    static let databaseTableName = "responder_position"

    var userId: String
    var tenantId: String
    var latitude: Double
    var longitude: Double
    var at: Date
}
