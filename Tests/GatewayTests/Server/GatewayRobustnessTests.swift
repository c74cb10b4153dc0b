import AsyncHTTPClient
import Contracts
import Foundation
import ServiceHTTP
import TestSupport
import Testing

@testable import Gateway

/// What a careless or hostile client can do to the public listener: every bad request gets a
/// prompt answer in the JSON envelope, and no connection outlives its purpose.
/// (`scripts/robustness` runs the same attacks at scale, with others' latency measured.)
@Suite struct GatewayRobustnessTests {
    private func port(_ harness: GatewayHarness) -> Int {
        Int(harness.gatewayURL.split(separator: ":").last!)!
    }

    /// Sends `request` on a new connection and returns the HTTP/1.1 answer's status, error code
    /// and request id.
    private func answer(
        to request: String, port: Int
    ) async throws -> (
        status: Int, code: String?, requestID: String?
    ) {
        let connection = try RawConnection(port: port)
        connection.send(request)
        // Answered at once on an idle machine; a full run's load once kept one past 10 s.
        let (bytes, closed) = await connection.readUntilClosed(timeout: .seconds(30))
        #expect(closed, "the connection stays open after an unreadable request")
        guard let parsed = RawConnection.parse(bytes) else { return (0, nil, nil) }
        let envelope = try? JSONDecoder().decode(ErrorEnvelope.self, from: Data(parsed.body.utf8))
        return (parsed.status, envelope?.error.code.rawValue, envelope?.error.requestId)
    }

    @Test func unreadableRequestsGetTheErrorEnvelope() async throws {
        let harness = try await GatewayHarness.start()
        let port = port(harness)
        let token = try await harness.signUp("robust@example.com").accessToken
        let big = String(repeating: "a", count: 30_000)
        let huge = String(repeating: "a", count: 300_000)

        // Over limits.headerBytes: the router's 431, before anything is forwarded.
        let oversized = try await harness.client.call(
            .GET, harness.url("/v1/reports/echo"), token: token, headers: [("x-filler", big)])
        #expect(oversized.status == 431)
        #expect((try? oversized.decode(ErrorEnvelope.self))?.error.code == .headersTooLarge)
        // Over the parser's hard cap: 431 from the HTTP/1.1 guard, then the connection closes.
        let capped = try await answer(
            to: "GET /v1/reports/echo HTTP/1.1\r\nhost: x\r\nx-filler: \(huge)\r\n\r\n", port: port)
        #expect(capped.status == 431 && capped.code == "HEADERS_TOO_LARGE")
        let malformed = try await answer(to: "GET /v1/me HTTP/1.1\r\nhost: x\r\nno colon here\r\n\r\n", port: port)
        #expect(malformed.status == 400 && malformed.code == "MALFORMED_REQUEST")
        let badChunk = try await answer(
            to: "POST /v1/media/sink HTTP/1.1\r\nhost: x\r\nauthorization: Bearer \(token)\r\n"
                + "transfer-encoding: chunked\r\n\r\n2\r\n{}\r\nzz\r\n{}\r\n0\r\n\r\n",
            port: port)
        #expect(badChunk.status == 400 && badChunk.code == "MALFORMED_REQUEST")
        // Each refusal names its request, as every other answer does, framing errors included.
        for refusal in [capped, malformed, badChunk] {
            #expect(refusal.requestID.map { !$0.isEmpty } == true, "\(refusal)")
        }
        // At most the body that broke off reached the service (the parser may find the bad
        // chunk before the request is forwarded).
        #expect(harness.recorder.hits <= 1)
        await harness.stop()
    }

    @Test func connectionsThatStallOrLeaveAreClosed() async throws {
        let harness = try await GatewayHarness.start(gateway: [
            "limits.handshakeTimeoutSeconds": "2", "limits.idleTimeoutSeconds": "2",
            "limits.connectionsPerAddress": "6",
        ])
        let port = port(harness)
        // Nothing sent; half an HTTP/2 preface; a request line trickling in; idle after an answer.
        let silent = try RawConnection(port: port)
        let halfPreface = try RawConnection(port: port)
        halfPreface.send("PRI * HTTP/2.0\r\n")
        let slow = try RawConnection(port: port)
        slow.send("GET /v1/me HTTP/1.1\r\n")
        let idle = try RawConnection(port: port)
        idle.send("GET /health/live HTTP/1.1\r\nhost: x\r\n\r\n")
        // Idle after an answer on HTTP/2: a GOAWAY naming the last stream, then the close. A
        // request sent as the GOAWAY crosses it is refused, never begun (sent again elsewhere).
        func health(stream: UInt32) -> [UInt8] {
            let fields = [(":method", "GET"), (":scheme", "http"), (":path", "/health/live"), (":authority", "x")]
            return RawHTTP2.frame(type: 0x1, flags: 0x5, stream: stream, RawHTTP2.headerBlock(fields))
        }
        let idleHTTP2 = try RawConnection(port: port)
        idleHTTP2.send(RawHTTP2.preface + RawHTTP2.frame(type: 0x4, stream: 0) + health(stream: 1))
        let idleHTTP2Frames = Task {
            let untilGoAway = await idleHTTP2.read(timeout: .seconds(10)) {
                RawHTTP2.frames(in: $0).contains { $0.type == 0x7 }
            }
            idleHTTP2.send(health(stream: 3))
            let (afterGoAway, closed) = await idleHTTP2.readUntilClosed(timeout: .seconds(10))
            return (RawHTTP2.frames(in: untilGoAway), RawHTTP2.frames(in: afterGoAway), closed)
        }
        for step in 0..<6 {
            try await Task.sleep(for: .milliseconds(500))
            slow.send("x-slow-\(step): 1\r\n")
        }
        for connection in [silent, halfPreface, slow] {
            let (bytes, closed) = await connection.readUntilClosed(timeout: .seconds(10))
            #expect(closed && bytes.isEmpty)
        }
        let (bytes, closed) = await idle.readUntilClosed(timeout: .seconds(10))
        #expect(closed && RawConnection.parse(bytes)?.status == 200)
        let (untilGoAway, afterGoAway, http2Closed) = await idleHTTP2Frames.value
        #expect(untilGoAway.contains { $0.type == 0x1 && $0.stream == 1 }, "the answer to stream 1")
        let goAway = try #require(untilGoAway.last { $0.type == 0x7 }, "no GOAWAY before the idle close")
        #expect(goAway.errorCode == 0)
        #expect(goAway.payload.prefix(4).reduce(0) { $0 << 8 | UInt32($1) } == 1, "the last stream begun")
        // REFUSED_STREAM: never begun, safe for the client to send again.
        let third = afterGoAway.filter { $0.stream == 3 }.map { "\($0.type):\($0.errorCode ?? 0)" }
        #expect(third == ["3:7"], "stream 3 after the GOAWAY")
        #expect(http2Closed)
        await harness.stop()
    }

    @Test func aPeerThatLeavesIsReleasedAtOnceAndEachAddressHasALimit() async throws {
        let harness = try await GatewayHarness.start(gateway: [
            "limits.handshakeTimeoutSeconds": "60", "limits.connectionsPerAddress": "3",
        ])
        let port = port(harness)
        // The server keeps half-closed HTTP/1.1 connections open; one that never chose a
        // protocol is closed as soon as its peer's side ends, long before the handshake limit.
        let leaving = try RawConnection(port: port)
        leaving.closeWriting()
        #expect(await leaving.readUntilClosed(timeout: .seconds(10)).closed)
        // Five connections from 127.0.0.1 (beside the harness client's own): those over three are
        // closed on arrival (which ones depends on which event loop sets them up first).
        let opened = try (0..<5).map { _ in try RawConnection(port: port) }
        var closed = 0
        for connection in opened where await connection.readUntilClosed(timeout: .seconds(2)).closed {
            closed += 1
        }
        #expect(closed >= 2 && closed <= 3)
        withExtendedLifetime(opened) {}
        await harness.stop()
    }

    /// Cleartext HTTP/2: a header block that never ends, CONTINUATION after CONTINUATION.
    private func floodContinuation(port: Int) throws -> RawConnection {
        let connection = try RawConnection(port: port)
        connection.send(RawHTTP2.preface)
        connection.send(RawHTTP2.frame(type: 0x4, stream: 0))  // SETTINGS
        connection.send(RawHTTP2.frame(type: 0x1, stream: 1, [0x82, 0x86, 0x84]))  // HEADERS GET / http, no END_HEADERS
        let field: [UInt8] = [0x00, 7] + Array("x-flood".utf8) + [100] + [UInt8](repeating: 0x61, count: 100)
        for _ in 0..<10 {
            connection.send(RawHTTP2.frame(type: 0x9, stream: 1, field))  // CONTINUATION, no END_HEADERS
        }
        return connection
    }

    @Test func aPeerThatBreaksHTTP2IsDisconnected() async throws {
        let harness = try await GatewayHarness.start()
        // NIOHTTP2 answers the sixth CONTINUATION with GOAWAY(ENHANCE_YOUR_CALM); the connection
        // must then close (left open, the gateway kept every further byte the peer sent).
        let connection = try floodContinuation(port: port(harness))
        let (bytes, closed) = await connection.readUntilClosed(timeout: .seconds(10))
        #expect(closed, "the connection stays open after a connection error")
        // The frames the server wrote: its SETTINGS (and ACK), then the GOAWAY.
        #expect(RawHTTP2.frames(in: bytes).last { $0.type == 0x7 }?.errorCode == 0xb)
        // A flood: the address's next connections are closed on arrival for a while.
        let next = try RawConnection(port: port(harness))
        let refused = await next.readUntilClosed(timeout: .seconds(5))
        #expect(refused.closed && refused.bytes.isEmpty)
        await harness.stop()
    }

    /// A request waiting for its connection's turn may send no more of its body than the small
    /// window every stream begins with: one that sends more anyway (here a declared 600 KB, all
    /// of it, while the connection's one turn is held) breaks flow control and is reset with
    /// FLOW_CONTROL_ERROR. (Streams once began with the 1 MiB window a body being read gets:
    /// one client's 100 waiting streams made the gateway hold 100 MiB and more.)
    @Test func aWaitingRequestMaySendOnlyASmallWindowOfItsBody() async throws {
        let harness = try await GatewayHarness.start(gateway: ["limits.concurrentRequestsPerConnection": "1"])
        let token = try await harness.signUp("window@example.com").accessToken
        let connection = try RawConnection(port: port(harness))
        func request(_ method: String, _ path: String, _ fields: [(String, String)] = []) -> [UInt8] {
            RawHTTP2.headerBlock(
                [(":method", method), (":scheme", "http"), (":path", path), (":authority", "localhost")]
                    + [("authorization", "Bearer \(token)")] + fields)
        }
        connection.send(RawHTTP2.preface)
        connection.send(RawHTTP2.frame(type: 0x4, stream: 0))  // SETTINGS
        // The server's SETTINGS acknowledged: from here its windows are the ones it announced.
        connection.send(RawHTTP2.frame(type: 0x4, flags: 0x1, stream: 0))
        connection.send(RawHTTP2.frame(type: 0x1, flags: 0x5, stream: 1, request("GET", "/v1/reports/hold")))
        #expect(await eventually(timeout: .seconds(20)) { harness.recorder.heldNow == 1 })
        let length = 600_000
        let fields = [("content-type", "application/json"), ("content-length", "\(length)")]
        connection.send(RawHTTP2.frame(type: 0x1, flags: 0x4, stream: 3, request("POST", "/v1/reports/echo", fields)))
        for offset in stride(from: 0, to: length, by: 16_384) {
            let size = min(16_384, length - offset)
            let last: UInt8 = offset + size == length ? 0x1 : 0
            connection.send(RawHTTP2.frame(type: 0x0, flags: last, stream: 3, [UInt8](repeating: 0x20, count: size)))
        }
        let refused: @Sendable (RawHTTP2.Frame) -> Bool = { $0.type == 0x7 || ($0.type == 0x3 && $0.stream == 3) }
        let bytes = await connection.read(timeout: .seconds(10)) { RawHTTP2.frames(in: $0).contains(where: refused) }
        harness.recorder.release()
        #expect(RawHTTP2.frames(in: bytes).first(where: refused)?.errorCode == 0x3)  // FLOW_CONTROL_ERROR
        await harness.stop()
    }

    /// A load balancer's connections carry everyone: it is not limited per address, and a
    /// flood on one of them closes that connection without shutting the balancer out.
    @Test func aTrustedProxyIsNotLimitedOrRefusedPerAddress() async throws {
        let harness = try await GatewayHarness.start(gateway: [
            "limits.connectionsPerAddress": "2", "public.trustedProxies": "127.0.0.1",
        ])
        let port = port(harness)
        let opened = try (0..<5).map { _ in try RawConnection(port: port) }
        for connection in opened {
            #expect(await !connection.readUntilClosed(timeout: .milliseconds(500)).closed)
        }
        withExtendedLifetime(opened) {}
        let flood = try floodContinuation(port: port)
        #expect(await flood.readUntilClosed(timeout: .seconds(30)).closed)
        let next = try await answer(
            to: "GET /health/live HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n", port: port)
        #expect(next.status == 200)
        await harness.stop()
    }

    @Test func aRefusedAddressIsAdmittedAgainOnceItsTimeIsUp() async throws {
        let counter = ConnectionCounter()
        #expect(counter.admit("192.0.2.1", limit: 2))
        counter.refuse("192.0.2.1", for: .milliseconds(200))
        #expect(!counter.admit("192.0.2.1", limit: 2))
        #expect(counter.admit("192.0.2.2", limit: 2))
        #expect(counter.open(from: "192.0.2.1") == 1)
        try await Task.sleep(for: .milliseconds(300))
        #expect(counter.admit("192.0.2.1", limit: 2))
        #expect(!counter.admit("192.0.2.1", limit: 2))
    }

    @Test func headRequestsDoNotDisturbOtherRequests() async throws {
        let harness = try await GatewayHarness.start(publicTLS: true)
        let token = try await harness.signUp("heads@example.com").accessToken
        // A HEAD whose GET has a body, many times over, interleaved with ordinary requests on the
        // same HTTP/2 connections to the gateway and from it to the services.
        let statuses = try await withThrowingTaskGroup(of: (String, Int, Int).self) { group in
            for index in 0..<60 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        let head = try await harness.client.call(.HEAD, harness.url("/v1/reports/echo"), token: token)
                        return ("HEAD", head.status, head.body.count)
                    }
                    let get = try await harness.client.call(.GET, harness.url("/v1/reports/echo"), token: token)
                    return ("GET", get.status, get.body.count)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(statuses.filter { $0.0 == "GET" }.allSatisfy { $0.1 == 200 && $0.2 > 0 })
        // Each HEAD is the recorder's GET, headers only.
        #expect(statuses.filter { $0.0 == "HEAD" }.allSatisfy { $0.1 == 200 && $0.2 == 0 })
        await harness.stop()
    }
}
