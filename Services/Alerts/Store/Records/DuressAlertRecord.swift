import Foundation
import GRDB

/// A row of `duress_alert`: one duress sign-in reported by auth.
struct DuressAlertRecord: Codable, FetchableRecord, PersistableRecord, Equatable {
    static let databaseTableName = "duress_alert"

    var id: String
    var incidentID: String
    var tenantID: String
    var customerRef: String
    var userID: String
    var latitude: Double?
    var longitude: Double?
    var devicePlatform: String?
    var raisedAt: Date

    enum CodingKeys: String, CodingKey {
        case id, latitude, longitude
        case incidentID = "incident_id"
        case tenantID = "tenant_id"
        case customerRef = "customer_ref"
        case userID = "user_id"
        case devicePlatform = "device_platform"
        case raisedAt = "raised_at"
    }
}
