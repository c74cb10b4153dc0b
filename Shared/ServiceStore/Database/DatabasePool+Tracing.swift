import GRDB
import Metrics
import ServiceHTTP
import Synchronization
import Tracing

/// Every database transaction a service runs, as a span when telemetry is on (``Telemetry``):
/// `sqlite read` or `sqlite write`, child of the request or job that asked, naming the store
/// method (`code.function`, `code.filepath`). GRDB runs the transaction on its own queue, where
/// the caller's trace is not visible, so the span is made here, around it.
extension DatabasePool {
    /// A write, in a span, committed with the writes that wait beside it (``GroupCommit``: one
    /// disk sync for them all; each is rolled back alone if it throws). Work to do once it is
    /// on disk goes through ``GroupCommit/afterCommit(of:_:)``.
    public func tracedWrite<T: Sendable>(
        function: String = #function, file: String = #fileID, _ updates: @escaping @Sendable (Database) throws -> T
    ) async throws -> T {
        let asked = ContinuousClock.now
        return try await Self.span("sqlite write", function: function, file: file) {
            // Held: from the writer's turn to the commit on disk (or the rollback).
            let began = Mutex<ContinuousClock.Instant?>(nil)
            defer {
                if let began = began.withLock(\.self) { WriteTimers.held.record(duration: .now - began) }
            }
            return try await GroupCommit.shared(for: self).write { db in
                let now = ContinuousClock.now
                began.withLock { $0 = now }
                WriteTimers.wait.record(duration: now - asked)
                return try updates(db)
            }
        }
    }

    /// GRDB's `read`, in a span.
    public func tracedRead<T: Sendable>(
        function: String = #function, file: String = #fileID, _ value: @Sendable (Database) throws -> T
    ) async throws -> T {
        try await Self.span("sqlite read", function: function, file: file) { try await read(value) }
    }

    private static func span<T>(
        _ name: String, function: String, file: String, _ transaction: () async throws -> T
    ) async throws -> T {
        try await Telemetry.withSpan(name, kind: .client) { span, _ in
            span?.attributes["db.system"] = "sqlite"
            span?.attributes["code.function"] = function
            span?.attributes["code.filepath"] = file
            return try await transaction()
        }
    }
}

/// How long writes wait for the database's one writer, and how long each holds it (both in
/// `/metrics`): a queue for the writer shows as the first growing while the second does not.
enum WriteTimers {
    static let wait = Metrics.Timer(label: "pinhole_sqlite_write_wait")
    static let held = Metrics.Timer(label: "pinhole_sqlite_write_held")
}
