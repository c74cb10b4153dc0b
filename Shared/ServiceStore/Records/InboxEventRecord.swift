import Foundation
import GRDB
import ServiceHTTP

/// A row of `kit_inbox`: an event this service has applied, so a redelivery has no second effect.
struct InboxEventRecord: ServiceRecord {
    static let databaseTableName = "kit_inbox"

    var eventId: String
    var type: String
    var source: String
    var appliedAt: Date

    /// Whether the event `id` was applied, asked with a statement the connection keeps: every
    /// event a service receives asks first.
    static func applied(_ id: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM kit_inbox WHERE event_id = ?)"), arguments: [id])
            ?? false
    }
}
