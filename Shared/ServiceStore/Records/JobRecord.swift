import Foundation
import GRDB
import ServiceHTTP

/// A row of `kit_job`: one durable job, waiting for its due time, retrying, or parked as failed.
struct JobRecord: ServiceRecord {
    static let databaseTableName = "kit_job"

    /// Set by SQLite. A job scheduled again under its key keeps its row and `seq`, with its
    /// attempts back to 0: a claimed job always has at least one, so a run finishing late (its
    /// job rescheduled meanwhile, by itself or by another write) never deletes or delays its
    /// replacement.
    var seq: Int64?
    var kind: String
    /// Unique per kind: scheduling the same key again keeps one job.
    var key: String
    var payload: Data
    var dueAt: Date
    var attempts: Int = 0
    var lastError: String? = nil
    /// Set when the job failed for good (a permanent error, or out of attempts): never run again.
    var failedAt: Date? = nil
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case seq, kind, key, attempts
        case dueAt = "due_at"
        case failedAt = "failed_at"
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        seq = inserted.rowID
    }

    /// Inserts it with a statement the connection keeps: jobs reschedule themselves on every
    /// run, a million a night for streak.
    mutating func insertPrepared(_ db: Database) throws {
        try db.cachedStatement(
            sql: "INSERT INTO kit_job (kind, key, payload, due_at, attempts, created_at) VALUES (?, ?, ?, ?, ?, ?)"
        ).execute(arguments: [kind, key, payload, StoredDate(dueAt), attempts, StoredDate(createdAt)])
        seq = db.lastInsertedRowID
    }

    /// Writes it over the row `seq` as a job never run: new payload and due time, attempts 0,
    /// no error, not parked.
    func rescheduleInPlace(_ db: Database) throws {
        try db.cachedStatement(
            sql: """
                UPDATE kit_job SET payload = ?, due_at = ?, attempts = 0, last_error = NULL, failed_at = NULL,
                created_at = ? WHERE seq = ?
                """
        ).execute(arguments: [payload, StoredDate(dueAt), StoredDate(createdAt), seq])
    }
}

extension JobRecord {
    /// Read by hand rather than through `Decodable`: the runner reads every job it claims (a
    /// million a night for streak), and column-name conversion was a tenth of that work.
    init(row: Row) throws {
        seq = try row.decode(forColumn: "seq")
        kind = try row.decode(forColumn: "kind")
        key = try row.decode(forColumn: "key")
        payload = try row.decode(forColumn: "payload")
        dueAt = try row.decode(forColumn: "due_at")
        attempts = try row.decode(forColumn: "attempts")
        lastError = try row.decode(forColumn: "last_error")
        failedAt = try row.decode(forColumn: "failed_at")
        createdAt = try row.decode(forColumn: "created_at")
    }
}

extension DerivableRequest<JobRecord> {
    /// Jobs still to run (not parked as failed).
    func pending() -> Self { filter(JobRecord.Columns.failedAt == nil) }
}
