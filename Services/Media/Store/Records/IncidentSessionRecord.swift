import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `incident_session`: a session auth opened under a duress incident (its
/// `duress.raised`), so that evidence collected in that session is found under the incident
/// the tenant's responders see on its alert.
struct IncidentSessionRecord: ServiceRecord {
    static let databaseTableName = "incident_session"

    var sessionId: String
    var incidentId: String
    var tenantId: String
}
