import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `duress_session`: the alert id `POST /v1/alerts/duress` gave a session, and the
/// location and device it sent. Written for every session that calls it, under duress or not,
/// so both answer alike; only a duress session's alert (which takes this id, whichever of the
/// call and auth's event comes first) is ever seen by anyone. Goes with the session.
struct DuressSessionRecord: ServiceRecord {
    static let databaseTableName = "duress_session"

    var sessionId: String
    var alertId: String
    var userId: String
    var latitude: Double?
    var longitude: Double?
    var devicePlatform: String?
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case userId = "user_id"
    }
}
