import Contracts
import Foundation
import GRDB

/// A row of `incident`: a customer's duress signal, open until a responder clears it. At most
/// one is open per customer.
struct IncidentRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "incident"

    var id: String
    var tenantID: String
    var userID: String
    var customerRef: String
    var raisedAt: Date
    var lastRaisedAt: Date
    var latitude: Double?
    var longitude: Double?
    var clearedAt: Date?
    var clearedBy: String?

    enum CodingKeys: String, CodingKey {
        case id, latitude, longitude
        case tenantID = "tenant_id"
        case userID = "user_id"
        case customerRef = "customer_ref"
        case raisedAt = "raised_at"
        case lastRaisedAt = "last_raised_at"
        case clearedAt = "cleared_at"
        case clearedBy = "cleared_by"
    }

    var incident: DuressIncident {
        DuressIncident(
            id: id, customerRef: customerRef, userId: userID, raisedAt: raisedAt, lastRaisedAt: lastRaisedAt,
            location: latitude.flatMap { lat in longitude.map { GeoLocation(latitude: lat, longitude: $0) } },
            clearedAt: clearedAt)
    }
}
