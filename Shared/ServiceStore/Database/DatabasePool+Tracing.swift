import GRDB
import ServiceHTTP
import Tracing

/// Every database transaction a service runs, as a span when telemetry is on (``Telemetry``):
/// `sqlite read` or `sqlite write`, child of the request or job that asked, naming the store
/// method (`code.function`, `code.filepath`). GRDB runs the transaction on its own queue, where
/// the caller's trace is not visible, so the span is made here, around it.
extension DatabasePool {
    /// GRDB's `write`, in a span.
    public func tracedWrite<T: Sendable>(
        function: String = #function, file: String = #fileID, _ updates: @Sendable (Database) throws -> T
    ) async throws -> T {
        try await Self.span("sqlite write", function: function, file: file) { try await write(updates) }
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
