import Foundation
import GRDB
import ServiceHTTP

/// The name of a kind of durable job, such as `push.deliver`; a ``JobRunner`` has one handler
/// per kind.
public struct JobKind: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { self.rawValue = value }
    public var description: String { rawValue }
}

/// Schedules durable jobs in the service's own database, inside the caller's transaction.
///
/// A job is stored with a kind, a key and a due time. If the transaction rolls back the job
/// never existed; once it commits, the service's ``JobRunner`` runs it at least once after it is
/// due, across restarts and SIGKILL (the row goes only after its handler succeeded). The key
/// makes scheduling idempotent: a streak's "at risk" reminder for one day is scheduled under
/// one key however many times the day's snaps are posted.
public struct JobQueue: Sendable {
    let clock: any WallClock
    let doorbell: Doorbell

    public init(clock: any WallClock) {
        self.clock = clock
        self.doorbell = Doorbell()
    }

    /// What scheduling a key that is already scheduled does.
    public enum Conflict: Sendable {
        /// The job already scheduled stays as it is (its due time and payload).
        case keep
        /// The job already scheduled is replaced: new payload, new due time, attempts from zero.
        case replace
        /// As `replace`, except that a job already due at that time stays (nothing is written):
        /// for a job that plans its own next run, looked up once.
        case move
    }

    /// Schedules `payload` to run as `kind` at `due` (now when nil). Returns false when `.keep`
    /// or `.move` left a job already scheduled under the key in place.
    @discardableResult
    public func schedule<Payload: Encodable>(
        _ kind: JobKind, key: String, payload: Payload, at due: Date? = nil, onConflict: Conflict = .keep,
        in db: Database
    ) throws -> Bool {
        try schedule(
            kind, key: key, encodedPayload: try JSONCoding.sharedEncoder.encode(payload), at: due,
            onConflict: onConflict, in: db)
    }

    /// As ``schedule(_:key:payload:at:onConflict:in:)``, with the payload's JSON already made (a
    /// job that reschedules many others encodes their payloads before it takes the writer).
    @discardableResult
    public func schedule(
        _ kind: JobKind, key: String, encodedPayload payload: Data, at due: Date? = nil, onConflict: Conflict = .keep,
        in db: Database
    ) throws -> Bool {
        let now = clock.now()
        let existing = try Self.job(kind, key: key, in: db)
        if let existing {
            // A failed job is history, not a schedule: scheduling its key again starts afresh.
            if existing.failedAt == nil {
                switch onConflict {
                case .keep: return false
                case .move where existing.dueAt == due ?? now: return false
                case .move, .replace: break
                }
            }
        }
        var record = JobRecord(
            kind: kind.rawValue, key: key, payload: payload, dueAt: due ?? now,
            createdAt: now)
        if let seq = existing?.seq {
            // Moved in place, as a new job: deleting the row and inserting another changed its
            // three index entries and the sequence, a million times a night for streak.
            record.seq = seq
            try record.rescheduleInPlace(db)
        } else {
            try record.insertPrepared(db)
        }
        if record.dueAt <= now {
            doorbell.ring(afterCommitOf: db)
        }
        return true
    }

    /// Removes the job of `kind` with `key` if it has not run yet (a reminder that is no longer
    /// needed). A run already under way still finishes. Returns whether there was one.
    @discardableResult
    public func cancel(_ kind: JobKind, key: String, in db: Database) throws -> Bool {
        try db.cachedStatement(sql: "DELETE FROM kit_job WHERE kind = ? AND key = ? AND failed_at IS NULL")
            .execute(arguments: [kind.rawValue, key])
        return db.changesCount > 0
    }

    /// When the job of `kind` with `key` is due, or nil when none is waiting.
    public func due(_ kind: JobKind, key: String, in db: Database) throws -> Date? {
        guard let job = try Self.job(kind, key: key, in: db), job.failedAt == nil else { return nil }
        return job.dueAt
    }

    /// The job of `kind` with `key`, pending or parked. A prepared statement kept by the
    /// connection: jobs reschedule themselves on every run, a million a night for streak.
    static func job(_ kind: JobKind, key: String, in db: Database) throws -> JobRecord? {
        try JobRecord.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM kit_job WHERE kind = ? AND key = ?"),
            arguments: [kind.rawValue, key])
    }
}
