import Foundation
import GRDB
import ServiceKit

/// A row of `duress_alert`: one duress sign-in reported by auth, open until its incident is
/// cleared. Its location is the sign-in's, replaced by what the app sends to
/// `POST /v1/alerts/duress`.
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
    /// The duress session (nil on alerts from before sessions were recorded).
    var sessionId: String?
    /// When its incident was cleared; it is open until then.
    var resolvedAt: Date?

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case userId = "user_id"
        case tenantId = "tenant_id"
        case sessionId = "session_id"
        case latitude, longitude
        case devicePlatform = "device_platform"
        case resolvedAt = "resolved_at"
    }
}
