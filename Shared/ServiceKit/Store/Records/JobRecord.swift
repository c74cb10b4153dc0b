import Foundation
import GRDB

/// A row of `kit_job`: one durable job, waiting for its due time, retrying, or parked as failed.
struct JobRecord: ServiceRecord {
    static let databaseTableName = "kit_job"

    /// Set by SQLite; a replaced job gets a new one, so a run finishing late never deletes or
    /// delays its replacement.
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
        case seq, kind, key
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

    /// Deletes it (by `seq`) with a statement the connection keeps.
    func deletePrepared(_ db: Database) throws {
        try db.cachedStatement(sql: "DELETE FROM kit_job WHERE seq = ?").execute(arguments: [seq])
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
