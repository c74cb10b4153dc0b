import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `incident`: a customer's duress signal, open until a responder clears it. At most
/// one is open per customer.
struct IncidentRecord: ServiceRecord {
    static let databaseTableName = "incident"

    var id: String
    var tenantId: String
    var userId: String
    var customerRef: String
    var raisedAt: Date
    var lastRaisedAt: Date
    var latitude: Double?
    var longitude: Double?
    var clearedAt: Date?
    var clearedBy: String?

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case tenantId = "tenant_id"
        case userId = "user_id"
        case clearedAt = "cleared_at"
    }

    var incident: DuressIncident {
        DuressIncident(
            id: id, customerRef: customerRef, userId: userId, raisedAt: raisedAt, lastRaisedAt: lastRaisedAt,
            location: latitude.flatMap { lat in longitude.map { GeoLocation(latitude: lat, longitude: $0) } },
            clearedAt: clearedAt)
    }
}

extension DerivableRequest<IncidentRecord> {
    /// Incidents no responder has cleared yet.
    func open() -> Self { filter(IncidentRecord.Columns.clearedAt == nil) }
}
