import HTTPTypes
import Hummingbird
import HummingbirdCore

/// The way a route sends an informational answer (`1xx`) ahead of its final one: `104 Upload
/// Resumption Supported` for the IETF resumable uploads, `103 Early Hints`. Hummingbird writes a
/// route's answer only once the route returns and gives routes no access to the writer, so
/// ``PinholeApplication`` keeps the request's writer here while the route runs, and takes it
/// back for the final answer.
public final class InformationalResponses: @unchecked Sendable {
    /// The current request's, inside a ``PinholeApplication``; nil elsewhere (router tests).
    @TaskLocal public static var current: InformationalResponses?

    // Touched by one task at a time: the route (or a task it waits for) while it runs, then the
    // application.
    private var writer: ResponseWriter?

    init(_ writer: consuming ResponseWriter) {
        self.writer = .some(writer)
    }

    /// Sends `head` (a `1xx`) now. Does nothing once the final answer is being written.
    public func send(_ head: HTTPResponse) async throws {
        precondition(head.status.kind == .informational, "only 1xx heads go ahead of the answer")
        switch writer {
        case .some(let writer):
            try await writer.writeInformationalHead(head)
        case .none:
            return
        }
    }

    /// The writer, for the final answer; later ``send(_:)`` calls do nothing.
    func finish() -> ResponseWriter {
        guard let writer = writer.take() else { preconditionFailure("the final answer is written once") }
        return writer
    }
}
