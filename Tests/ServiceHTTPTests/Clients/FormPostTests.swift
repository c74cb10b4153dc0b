import AsyncHTTPClient
import Foundation
import NIOCore
import ServiceHTTP
import Testing

@Suite struct FormPostTests {
    /// A provider that cannot be reached is a 503 naming it; what failed underneath is kept
    /// for the log (an operator needs to tell a refused connection from a bad certificate)
    /// and never reaches the caller's envelope.
    @Test func anUnreachableProviderKeepsItsCauseOutOfTheAnswer() async throws {
        let http = HTTPClient(eventLoopGroupProvider: .singleton)
        // Nothing listens on port 1 of the loopback address: the connection is refused at once.
        let failure = await #expect(throws: ServiceError.self) {
            try await FormPost.send(["a": "b"], to: "http://127.0.0.1:1/token", provider: "Example", http: http)
        }
        try await http.shutdown()
        let error = try #require(failure)
        #expect(error.code == .upstreamUnavailable)
        #expect(error.message == "Example cannot be reached.")
        let cause = try #require(error.cause)
        #expect(!cause.isEmpty)
        #expect(error.description.contains(cause))
        let envelope = String(buffer: error.envelope(requestID: "r1"))
        #expect(envelope.contains("Example cannot be reached."))
        #expect(!envelope.contains(cause))
    }
}
