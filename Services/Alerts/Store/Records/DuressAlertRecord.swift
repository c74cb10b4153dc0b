import Foundation
import GRDB
import ServiceKit

/// A row of `duress_alert`: one duress sign-in reported by auth.
struct DuressAlertRecord: ServiceRecord, Equatable {
    static let databaseTableName = "duress_alert"

    var id: String
    var incidentId: String
    var tenantId: String
    var customerRef: String
    var userId: String
    var latitude: Double?
    var longitude: Double?
    var devicePlatform: String?
    var raisedAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case userId = "user_id"
    }
}
