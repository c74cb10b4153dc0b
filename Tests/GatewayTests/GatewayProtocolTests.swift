import AsyncHTTPClient
import Foundation
import ServiceKit
import TestSupport
import Testing

@Suite struct GatewayProtocolTests {
    /// Runs curl (a real HTTP/2 peer from outside the project) and returns the negotiated
    /// HTTP version and the status it reports.
    func curl(_ arguments: [String]) async throws -> (version: String, status: String) {
        let output = LineCollector()
        let process = try ChildProcess(
            name: "curl", executable: URL(fileURLWithPath: "/usr/bin/env"),
            arguments: ["curl", "-s", "-m", "10", "-o", "/dev/null", "-w", "%{http_version} %{http_code}\\n"]
                + arguments,
            environment: ProcessInfo.processInfo.environment, onLine: output.append)
        await process.waitForExit()
        let parts = output.lines.joined().split(separator: " ")
        guard parts.count == 2 else { return ("?", output.lines.joined()) }
        return (String(parts[0]), String(parts[1]))
    }

    @Test func withoutACertificateOnePortSpeaksHTTP1AndPriorKnowledgeHTTP2() async throws {
        let harness = try await GatewayHarness.start()
        let url = harness.url("/.well-known/jwks.json")
        #expect(try await curl(["--http2-prior-knowledge", url]) == ("2", "200"))
        #expect(try await curl(["--http1.1", url]) == ("1.1", "200"))
        await harness.stop()
    }

    @Test func withACertificateALPNNegotiatesHTTP2AndFallsBackToHTTP1() async throws {
        let harness = try await GatewayHarness.start(publicTLS: true)
        let response = try await harness.client.call(.GET, harness.url("/.well-known/jwks.json"))
        #expect(response.status == 200)
        #expect(response.version == .http2)
        let authority = harness.directory.url.appendingPathComponent("pki/ca.crt").path
        let url = harness.url("/.well-known/jwks.json").replacingOccurrences(of: "127.0.0.1", with: "localhost")
        #expect(try await curl(["--cacert", authority, "--http1.1", url]) == ("1.1", "200"))
        #expect(try await curl(["--cacert", authority, "--http2", url]) == ("2", "200"))
        await harness.stop()
    }
}
