import AsyncHTTPClient
import Foundation
import ServiceHTTP
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

    @Test func aClientThatExpectsContinueIsToldToSendItsBody() async throws {
        let harness = try await GatewayHarness.start()
        let port = Int(harness.gatewayURL.split(separator: ":").last!)!
        let token = try await harness.signUp("continue@example.com").accessToken
        // An upload route (on to media over HTTP/1.1) and a JSON one (the HTTP/2 hop): the
        // 100 comes before any body byte is sent, and the service never sees the expectation.
        for (path, body) in [("/v1/media/sink", "hello"), ("/v1/reports/echo", "{}")] {
            let connection = try RawConnection(port: port)
            connection.send(
                "POST \(path) HTTP/1.1\r\nhost: x\r\nauthorization: Bearer \(token)\r\n"
                    + "content-type: application/json\r\ncontent-length: \(body.utf8.count)\r\n"
                    + "expect: 100-continue\r\nconnection: close\r\n\r\n")
            let interim = String(
                decoding: await connection.read(until: "\r\n\r\n", timeout: .seconds(20)), as: UTF8.self)
            #expect(interim.hasPrefix("HTTP/1.1 100 Continue\r\n"), "\(path): \(interim)")
            connection.send(body)
            let (bytes, closed) = await connection.readUntilClosed(timeout: .seconds(30))
            #expect(closed)
            let answer = RawConnection.parse(bytes)
            #expect(answer?.status == 200, "\(path)")
            let json = try #require(answer.map { Data($0.body.utf8) })
            if path == "/v1/media/sink" {
                #expect(try JSONCoding.decoder().decode(UpstreamRecorder.Sink.self, from: json).bytes == 5)
            } else {
                let headers = try JSONDecoder().decode([String: String].self, from: json)
                #expect(headers["expect"] == nil && headers["authorization"] != nil)
            }
        }
        #expect(harness.recorder.hits == 2)

        // A request refused from its head gets its answer at once, though no body came.
        let refused = try RawConnection(port: port)
        refused.send(
            "POST /v1/media/sink HTTP/1.1\r\nhost: x\r\ncontent-length: 5\r\nexpect: 100-continue\r\n\r\n")
        let head = String(
            decoding: await refused.read(until: "\r\n\r\n", timeout: .seconds(20)), as: UTF8.self)
        #expect(head.hasPrefix("HTTP/1.1 401 "), "\(head)")
        #expect(harness.recorder.hits == 2)
        await harness.stop()
    }
}
