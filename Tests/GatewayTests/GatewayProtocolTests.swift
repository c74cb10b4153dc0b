import AsyncHTTPClient
import Foundation
import ServiceKit
import TestSupport
import Testing

@Suite struct GatewayProtocolTests {
    @Test func withoutACertificateOnePortSpeaksHTTP1AndPriorKnowledgeHTTP2() async throws {
        let harness = try await GatewayHarness.start()
        let url = harness.url("/.well-known/jwks.json")
        #expect(try await Curl.run(["--http2-prior-knowledge", url]) == ("2", "200"))
        #expect(try await Curl.run(["--http1.1", url]) == ("1.1", "200"))
        await harness.stop()
    }

    @Test func withACertificateALPNNegotiatesHTTP2AndFallsBackToHTTP1() async throws {
        let harness = try await GatewayHarness.start(publicTLS: true)
        let response = try await harness.client.call(.GET, harness.url("/.well-known/jwks.json"))
        #expect(response.status == 200)
        #expect(response.version == .http2)
        let authority = harness.directory.url.appendingPathComponent("pki/ca.crt").path
        let url = harness.url("/.well-known/jwks.json").replacingOccurrences(of: "127.0.0.1", with: "localhost")
        #expect(try await Curl.run(["--cacert", authority, "--http1.1", url]) == ("1.1", "200"))
        #expect(try await Curl.run(["--cacert", authority, "--http2", url]) == ("2", "200"))
        await harness.stop()
    }
}
