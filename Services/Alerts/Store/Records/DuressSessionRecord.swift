import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `duress_session`: the alert id `POST /v1/alerts/duress` gave a session, and the
/// location and device it sent. Written for every session that calls it, under duress or not,
/// so both answer alike. A duress session belongs to its incident's one alert
/// (`incidentAlertId`): the first session's alert takes its `alertId`, whichever of the call
/// and auth's event comes first; a later session's id stays a second name of that alert (its
/// NFC tag says it). Goes with the session.
struct DuressSessionRecord: ServiceRecord {
    static let databaseTableName = "duress_session"

    var sessionId: String
    var alertId: String
    var userId: String
    var latitude: Double?
    var longitude: Double?
    var devicePlatform: String?
    var createdAt: Date
    /// The alert of the incident the session signed in under (nil until auth's
    /// `duress.raised` for it arrives, and for sessions not under duress).
    var incidentAlertId: String?

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case userId = "user_id"
        case alertId = "alert_id"
        case incidentAlertId = "incident_alert_id"
    }
}
