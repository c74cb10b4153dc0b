import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `duress_alert`: one per duress incident reported by auth, however many sessions
/// sign in under it, open until the incident is cleared. Its location is the latest place a
/// sign-in gave or the app sent to `POST /v1/alerts/duress`.
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
        case incidentId = "incident_id"
        case tenantId = "tenant_id"
        case sessionId = "session_id"
        case latitude, longitude
        case devicePlatform = "device_platform"
        case resolvedAt = "resolved_at"
    }
}

extension DuressAlertRecord {
    /// Read by hand rather than through `Decodable`: every poll of `/nearby` reads the open
    /// alerts around the caller.
    init(row: Row) throws {
        id = try row.decode(forColumn: "id")
        incidentId = try row.decode(forColumn: "incident_id")
        tenantId = try row.decode(forColumn: "tenant_id")
        customerRef = try row.decode(forColumn: "customer_ref")
        userId = try row.decode(forColumn: "user_id")
        latitude = try row.decode(forColumn: "latitude")
        longitude = try row.decode(forColumn: "longitude")
        devicePlatform = try row.decode(forColumn: "device_platform")
        raisedAt = try row.decode(forColumn: "raised_at")
        sessionId = try row.decode(forColumn: "session_id")
        resolvedAt = try row.decode(forColumn: "resolved_at")
    }
}
