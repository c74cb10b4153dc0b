import Foundation
import GRDB
import ServiceHTTP

/// A row of `kit_outbox_event`: an event written in the transaction of the change it
/// describes, kept until every subscriber has acknowledged it.
struct OutboxEventRecord: ServiceRecord {
    static let databaseTableName = "kit_outbox_event"

    /// The order events were written in; set by SQLite.
    var seq: Int64?
    /// The event id (lowercase UUID), as in its envelope.
    var id: String
    var type: String
    /// The JSON envelope, as delivered.
    var body: Data
    var occurredAt: Date

    /// Inserts it with a statement the connection keeps (a job pass writes an event per
    /// object it moves); returns its `seq`.
    func insertPrepared(_ db: Database) throws -> Int64 {
        try db.cachedStatement(sql: "INSERT INTO kit_outbox_event (id, type, body, occurred_at) VALUES (?, ?, ?, ?)")
            .execute(arguments: [id, type, body, StoredDate(occurredAt)])
        return db.lastInsertedRowID
    }
}
