import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `mail_request`: mail asked for an address, whether or not it names an account,
/// so the per-address limit counts the same either way. Rows older than the limit's hour are
/// removed (``MailHousekeeping``).
struct MailRequestRecord: ServiceRecord {
    static let databaseTableName = "mail_request"

    var address: String
    var purpose: EmailPurpose
    var requestedAt: Date

    enum Columns: String, ColumnExpression {
        case address
        case requestedAt = "requested_at"
    }
}
