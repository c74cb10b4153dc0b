import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `duress_ack`: one responder's acknowledgement of a duress alert (the first one
/// stands; acknowledging again changes nothing).
struct DuressAcknowledgementRecord: ServiceRecord, Equatable {
    static let databaseTableName = "duress_ack"

    var alertId: String
    var userId: String
    var customerRef: String
    var method: AcknowledgementMethod
    var at: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case alertId = "alert_id"
        case userId = "user_id"
        case at
    }

    var contract: AlertAcknowledgement {
        AlertAcknowledgement(alertId: alertId, customerRef: customerRef, method: method, acknowledgedAt: at)
    }
}
