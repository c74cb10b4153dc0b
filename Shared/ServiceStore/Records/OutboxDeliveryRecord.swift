import Foundation
import GRDB
import ServiceHTTP

/// A row of `kit_outbox_delivery`: one subscriber still to acknowledge one event.
struct OutboxDeliveryRecord: ServiceRecord {
    static let databaseTableName = "kit_outbox_delivery"

    var eventSeq: Int64
    var subscriber: String
    var attempts: Int = 0
    var nextAttemptAt: Date
    var lastError: String? = nil
    /// Set when the subscriber refused the event outright: it is parked, never retried.
    var deadAt: Date? = nil

    /// Inserts it with a statement the connection keeps (see ``OutboxEventRecord``).
    func insertPrepared(_ db: Database) throws {
        try db.cachedStatement(
            sql:
                "INSERT INTO kit_outbox_delivery (event_seq, subscriber, attempts, next_attempt_at) VALUES (?, ?, ?, ?)"
        ).execute(arguments: [eventSeq, subscriber, attempts, StoredDate(nextAttemptAt)])
    }
}
