import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `sms_outbox`: a text the default phone verification "sends", for an operator's
/// own SMS gateway to pick up.
struct SmsOutboxRecord: ServiceRecord {
    static let databaseTableName = "sms_outbox"

    var id: String
    var userId: String
    var phoneNumber: String
    var body: String
    var createdAt: Date
}
