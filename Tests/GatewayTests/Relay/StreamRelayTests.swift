import AsyncHTTPClient
import Contracts
import Foundation
import NIOCore
import NIOHTTP1
import ServiceHTTP
import TestSupport
import Testing

@testable import Gateway

/// The relay (``StreamRelay``, and ``FrameRelay`` for requests without a body or with a body
/// of a declared length) answers what it takes as the
/// Hummingbird pipeline would: each request is sent to a relaying gateway and to one with
/// `upstream.relay` off, and the service and the client must see the same on both (the
/// gateway's `/metrics` proves the first one relayed it, which way: frame by frame or on a
/// stream channel, and over which hop: a kept-alive HTTP/1.1 connection or an HTTP/2 stream).
@Suite struct StreamRelayTests {
    /// One request, as both gateways get it.
    struct Call {
        var method: HTTPMethod
        var path: String
        var headers: [(String, String)] = []
        var body: Data?
    }

    @Test(arguments: [(keptAlive: true, frames: true), (false, true), (true, false)])
    func relayedAnswersAreThePipelinesAnswers(keptAlive: Bool, frames: Bool) async throws {
        let relaying = try await GatewayHarness.start(
            gateway: ["upstream.relayKeptAlive": "\(keptAlive)", "upstream.relayFrames": "\(frames)"], publicTLS: true)
        let piped = try await GatewayHarness.start(gateway: ["upstream.relay": "false"], publicTLS: true)
        let relayingToken = try await relaying.signUp("relay@example.com").accessToken
        let pipedToken = try await piped.signUp("relay@example.com").accessToken
        try await Self.warmUp(relaying, token: relayingToken)
        if keptAlive {
            // The loop's first kept-alive connection is made while the first requests take HTTP/2.
            let lane = await eventually(timeout: .seconds(20), every: .milliseconds(50)) {
                let before = (try? await Self.keptAlive(relaying)) ?? 0
                _ = try? await relaying.client.call(.GET, relaying.url("/v1/reports/echo"), token: relayingToken)
                return ((try? await Self.keptAlive(relaying)) ?? 0) > before
            }
            #expect(lane, "no request went on a kept-alive connection")
        }
        let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
        let calls = [
            // Internal headers a client tries to pass, its trace and request id: the echo shows
            // what the service received.
            Call(
                method: .GET, path: "/v1/reports/echo?x=1",
                headers: [
                    ("x-pinhole-client-ip", "203.0.113.9"), ("x-pinhole-user", "mallory"),
                    ("x-forwarded-for", "203.0.113.9"), ("traceparent", traceparent),
                    ("x-request-id", "client-req-1"), ("accept-language", "fr"), ("connection", "close"),
                ]),
            Call(
                method: .POST, path: "/v1/reports/echo", headers: [("content-type", "application/json")],
                body: Data("{\"reason\":\"spam\"}".utf8)),
            // An answer of the service's own that is an error: the envelope comes through as is.
            Call(method: .GET, path: "/v1/reports/nothing-here"),
            Call(method: .DELETE, path: "/v1/reports/echo"),
            // The real auth service behind both.
            Call(method: .GET, path: "/v1/me"),
        ]
        for call in calls {
            let before = try await Self.relayed(relaying)
            let keptAliveBefore = try await Self.keptAlive(relaying)
            let framedBefore = try await Self.framed(relaying)
            let relayed = try await relaying.client.call(
                call.method, relaying.url(call.path), token: relayingToken, bytes: call.body, headers: call.headers)
            #expect(try await Self.relayed(relaying) == before + 1, "\(call.path) was not relayed")
            // One connection after another: each call finds the one the last gave back.
            #expect(try await Self.keptAlive(relaying) == keptAliveBefore + (keptAlive ? 1 : 0), "\(call.path)")
            // Every one of them frame by frame (the POST's body has its length), unless that is off.
            #expect(try await Self.framed(relaying) == framedBefore + (frames ? 1 : 0), "\(call.path)")
            let answer = try await piped.client.call(
                call.method, piped.url(call.path), token: pipedToken, bytes: call.body, headers: call.headers)
            #expect(relayed.status == answer.status, "\(call.path)")
            #expect(relayed.errorCode == answer.errorCode, "\(call.path)")
            #expect(Self.names(relayed) == Self.names(answer), "\(call.path)")
            #expect(relayed.header("ratelimit-policy") == answer.header("ratelimit-policy"))
            // Each answer names its own request and trace.
            let requestID = try #require(relayed.header("x-request-id"))
            #expect(RequestTracingMiddleware<ServiceRequestContext>.acceptableRequestID(requestID) != nil)
            #expect(relayed.header("traceparent").flatMap(TraceParent.init(header:)) != nil)
            if let envelope = try? relayed.decode(ErrorEnvelope.self) { #expect(envelope.error.requestId == requestID) }
            guard call.path.hasPrefix("/v1/reports/echo"), call.method != .DELETE else { continue }
            var seen = try relayed.decode([String: String].self)
            var expected = try answer.decode([String: String].self)
            // The service gets the client's request id, else one of the gateway's; a child of
            // the client's trace, else a new one; and the token each was sent.
            #expect(seen["x-request-id"] == requestID)
            let span = try #require(seen["traceparent"].flatMap(TraceParent.init(header:)))
            if call.headers.contains(where: { $0.0 == "traceparent" }) {
                #expect(span.traceID == "4bf92f3577b34da6a3ce929d0e0e4736" && span.parentID != "00f067aa0ba902b7")
                #expect(requestID == "client-req-1")
            }
            #expect(seen["authorization"] == "Bearer \(relayingToken)")
            if let body = call.body { #expect(seen[":body"] == String(decoding: body, as: UTF8.self)) }
            for name in ["x-request-id", "traceparent", "authorization", ":authority", "host"] {
                seen[name] = nil
                expected[name] = nil
            }
            #expect(seen == expected, "\(call.path)")
        }
        await relaying.stop()
        await piped.stop()
    }

    /// A service that does not begin its answer in time: 504 from the relay, in the envelope.
    /// (The bound covers the sign-up through the same gateway too: its password hashing took
    /// over a second while a full run kept both cores busy, and 1 s failed it.) Two requests on
    /// the connection, the second sent once the first is held: each times out on its own
    /// deadline (the connection's one timer, armed for the first, is armed again for the second).
    @Test func aSlowServiceIsA504FromTheRelay() async throws {
        let harness = try await GatewayHarness.start(gateway: ["upstream.timeoutSeconds": "5"], publicTLS: true)
        let token = try await harness.signUp("slow@example.com").accessToken
        try await Self.warmUp(harness, token: token)
        let before = try await Self.relayed(harness)
        async let first = harness.client.call(.GET, harness.url("/v1/reports/hold"), token: token)
        #expect(await eventually(timeout: .seconds(20)) { harness.recorder.heldNow == 1 })
        try await Task.sleep(for: .seconds(1))
        let second = try await harness.client.call(.GET, harness.url("/v1/reports/hold"), token: token)
        for answer in [try await first, second] {
            #expect(answer.status == 504)
            #expect(answer.errorCode == .upstreamTimeout)
            #expect(answer.header("retry-after") == "1")
            #expect(try answer.decode(ErrorEnvelope.self).error.requestId == answer.header("x-request-id"))
        }
        #expect(try await Self.relayed(harness) == before + 2)
        harness.recorder.release()
        await harness.stop()
    }

    /// A client that resets a GET the connection's ``FrameRelay`` is answering gives its
    /// connection's turn back: with one turn per connection, the next request on the same
    /// connection is answered (it would wait for good for a turn never given back), and the
    /// reset one is not counted as answered.
    @Test func aResetFramedRequestGivesItsTurnBack() async throws {
        let harness = try await GatewayHarness.start(
            gateway: ["limits.concurrentRequestsPerConnection": "1"], publicTLS: true)
        let token = try await harness.signUp("reset@example.com").accessToken
        try await Self.warmUp(harness, token: token)
        let framed = try await Self.framed(harness)
        let held = Task { try await harness.client.call(.GET, harness.url("/v1/reports/hold"), token: token) }
        #expect(await eventually(timeout: .seconds(20)) { harness.recorder.heldNow == 1 })
        held.cancel()
        _ = try? await held.value
        let next = try await harness.client.call(.GET, harness.url("/v1/reports/echo"), token: token)
        #expect(next.status == 200)
        #expect(try await Self.framed(harness) == framed + 1)
        harness.recorder.release()
        await harness.stop()
    }

    /// A GET the connection's relay takes frame by frame while its connection's turns are all
    /// taken waits for one (a callback, not a task), and is answered frame by frame once it
    /// comes.
    @Test func aFramedRequestWaitsForItsTurn() async throws {
        let harness = try await GatewayHarness.start(
            gateway: ["limits.concurrentRequestsPerConnection": "1"], publicTLS: true)
        let token = try await harness.signUp("turns@example.com").accessToken
        try await Self.warmUp(harness, token: token)
        let framed = try await Self.framed(harness)
        let held = Task { try await harness.client.call(.GET, harness.url("/v1/reports/hold"), token: token).status }
        #expect(await eventually(timeout: .seconds(20)) { harness.recorder.heldNow == 1 })
        let next = Task {
            let status = try await harness.client.call(.GET, harness.url("/v1/reports/echo"), token: token).status
            return (status, ContinuousClock.now)
        }
        // Answered at once, it would be answered before the held one is let go.
        try await Task.sleep(for: .seconds(1))
        let released = ContinuousClock.now
        harness.recorder.release()
        #expect(try await held.value == 200)
        let (status, answered) = try await next.value
        #expect(status == 200)
        #expect(answered > released, "the second GET did not wait for the connection's one turn")
        #expect(try await Self.framed(harness) == framed + 2)
        await harness.stop()
    }

    /// A POST whose body has its length is relayed frame by frame; waiting for its connection's
    /// turn, it holds what of the body arrives meanwhile (the small window a stream begins
    /// with), and once the turn comes its window opens and the service gets all of it.
    @Test func aFramedPostWaitsForItsTurnWithItsBody() async throws {
        let harness = try await GatewayHarness.start(
            gateway: ["limits.concurrentRequestsPerConnection": "1"], publicTLS: true)
        let token = try await harness.signUp("body@example.com").accessToken
        try await Self.warmUp(harness, token: token)
        let framed = try await Self.framed(harness)
        try await Self.post(Self.largeBody, whileTurnIsHeld: harness, token: token)
        #expect(try await Self.framed(harness) == framed + 2)
        await harness.stop()
    }

    /// A POST without a length takes a stream channel; waiting for its turn, the stream is not
    /// read, and once the turn comes its window opens and the service gets the whole body.
    @Test func anUnsizedPostWaitsForItsTurnWithItsBody() async throws {
        let harness = try await GatewayHarness.start(
            gateway: ["limits.concurrentRequestsPerConnection": "1"], publicTLS: true)
        let token = try await harness.signUp("unsized@example.com").accessToken
        try await Self.warmUp(harness, token: token)
        let (framed, relayed) = (try await Self.framed(harness), try await Self.relayed(harness))
        try await Self.post(Self.largeBody, whileTurnIsHeld: harness, token: token, sized: false)
        #expect(try await Self.framed(harness) == framed + 1)
        #expect(try await Self.relayed(harness) == relayed + 2)
        await harness.stop()
    }

    /// Without the relay, a POST waiting for its turn in the pipeline has its stream read ahead
    /// (Hummingbird's stream channel buffers some parts), so a 200 KB body can be all sent,
    /// its end still unread, when the pipeline asks for the stream's full window: NIOHTTP2
    /// refuses that update as a stream error, which must not reach the body's reader.
    @Test func aPostWaitingInThePipelineKeepsItsBody() async throws {
        let harness = try await GatewayHarness.start(
            gateway: ["upstream.relay": "false", "limits.concurrentRequestsPerConnection": "1"], publicTLS: true)
        let token = try await harness.signUp("pipeline@example.com").accessToken
        try await Self.post(
            "{\"reason\":\"\(String(repeating: "y", count: 200_000))\"}", whileTurnIsHeld: harness, token: token)
        await harness.stop()
    }

    /// A framed POST not planned once its turn comes (the loop's connection to the service not
    /// made yet) goes to its stream with the body it held and the window that body left: the
    /// pipeline opens the window and forwards all of it.
    @Test func aFramedPostHandedOverKeepsItsBody() async throws {
        let harness = try await GatewayHarness.start(
            gateway: ["limits.concurrentRequestsPerConnection": "1"], publicTLS: true)
        let token = try await harness.signUp("handover@example.com").accessToken
        // A GET with a body is the pipeline's: it verifies the token (the relay admits only
        // tokens it has seen) without a relayed request asking for the loop's connection to the
        // service, and then holds the one turn, still without that connection.
        let verified = try await harness.client.call(
            .GET, harness.url("/v1/reports/echo"), token: token, bytes: Data("x".utf8))
        #expect(verified.status == 200)
        let (framed, relayed) = (try await Self.framed(harness), try await Self.relayed(harness))
        try await Self.post(Self.largeBody, whileTurnIsHeld: harness, token: token, holdBody: Data("x".utf8))
        #expect(try await Self.framed(harness) == framed)
        #expect(try await Self.relayed(harness) == relayed)
        await harness.stop()
    }

    /// A framed POST the rate limit refuses once its turn comes goes to its stream with the
    /// body it held, which has used up the window the stream began with: the pipeline reads
    /// the rest before its 429 goes out (``RequestBodyDrainMiddleware``), which it can only
    /// once the stream's channel knows the window the held body left.
    @Test func aFramedPostRefusedAfterItsWaitIsThePipelines429() async throws {
        let harness = try await GatewayHarness.start(
            gateway: [
                "limits.concurrentRequestsPerConnection": "1", "ratelimit.write.limit": "1",
                "ratelimit.write.windowSeconds": "3600",
            ], publicTLS: true)
        let token = try await harness.signUp("refused@example.com").accessToken
        try await Self.warmUp(harness, token: token)
        let allowed = try await harness.client.call(
            .POST, harness.url("/v1/reports/echo"), token: token, bytes: Data("{}".utf8))
        #expect(allowed.status == 200)
        let framed = try await Self.framed(harness)
        try await Self.post(Self.largeBody, whileTurnIsHeld: harness, token: token, expecting: 429)
        // The held GET was framed; the POST was handed over.
        #expect(try await Self.framed(harness) == framed + 1)
        await harness.stop()
    }

    /// A service that answers a framed POST before the client has ended its stream (here: no
    /// such route, answered from the head) has its side of the exchange reset; the client gets
    /// the whole answer, is asked with RST_STREAM NO_ERROR to stop sending, and its connection
    /// takes the next request.
    @Test func anAnswerBeforeTheBodysEndComesWhole() async throws {
        let harness = try await GatewayHarness.start(publicTLS: true)
        let token = try await harness.signUp("early@example.com").accessToken
        try await Self.warmUp(harness, token: token)
        let framed = try await Self.framed(harness)
        let piped = try await GatewayHarness.start(gateway: ["upstream.relay": "false"], publicTLS: true)
        let pipedToken = try await piped.signUp("early@example.com").accessToken
        let expected = try await piped.client.call(
            .POST, piped.url("/v1/reports/nothing-here"), token: pipedToken, bytes: Data("{}".utf8))
        let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
        var request = HTTPClientRequest(url: harness.url("/v1/reports/nothing-here"))
        request.method = .POST
        request.headers.add(name: "authorization", value: "Bearer \(token)")
        request.headers.add(name: "content-type", value: "application/json")
        request.body = .stream(stream, length: .known(Int64(4096)))
        async let response = harness.client.execute(request, timeout: .seconds(30))
        continuation.yield(ByteBuffer(repeating: 0x20, count: 2048))
        // The answer reaches the gateway while the client's body is not all sent.
        try await Task.sleep(for: .milliseconds(500))
        continuation.yield(ByteBuffer(repeating: 0x20, count: 2048))
        continuation.finish()
        let answer = try await response
        #expect(answer.status.code == 404)
        let body = try await answer.body.collect(upTo: 1 << 16)
        let envelope = try JSONCoding.decoder().decode(ErrorEnvelope.self, from: Data(body.readableBytesView))
        let expectedEnvelope = try expected.decode(ErrorEnvelope.self)
        #expect(envelope.error.code == expectedEnvelope.error.code)
        #expect(envelope.error.message == expectedEnvelope.error.message)
        #expect(try await Self.framed(harness) == framed + 1)
        let next = try await harness.client.call(.GET, harness.url("/v1/reports/echo"), token: token)
        #expect(next.status == 200)
        await harness.stop()
        await piped.stop()
    }

    /// A framed POST whose declared body has all come but not its END_STREAM (a client that ends
    /// its body with an empty DATA frame of its own, as AsyncHTTPClient may): the service has the
    /// whole body and answers, and the answer is not followed by RST_STREAM, which that client
    /// can take for a failed request; the END_STREAM, when it comes, closes the stream.
    @Test func aWholeBodyStillWithoutItsEndIsAnsweredWithoutAReset() async throws {
        let harness = try await GatewayHarness.start()
        let token = try await harness.signUp("whole@example.com").accessToken
        let connection = try RawConnection(port: Int(harness.gatewayURL.split(separator: ":").last!)!)
        func request(_ method: String, _ fields: [(String, String)] = []) -> [UInt8] {
            RawHTTP2.headerBlock(
                [(":method", method), (":scheme", "http"), (":path", "/v1/reports/echo"), (":authority", "localhost")]
                    + [("authorization", "Bearer \(token)")] + fields)
        }
        func ended(_ stream: UInt32) -> @Sendable ([UInt8]) -> Bool {
            { bytes in
                RawHTTP2.frames(in: bytes).contains {
                    $0.stream == stream && ($0.type == 0x3 || ($0.type <= 0x1 && $0.flags & 0x1 != 0))
                }
            }
        }
        connection.send(RawHTTP2.preface)
        connection.send(RawHTTP2.frame(type: 0x4, stream: 0))
        connection.send(RawHTTP2.frame(type: 0x4, flags: 0x1, stream: 0))
        // GETs on this connection until one is relayed frame by frame: its loop's connection to
        // the service is up.
        var stream: UInt32 = 1
        let before = try await Self.framed(harness)
        var warm = false
        for _ in 0..<50 where !warm {
            connection.send(RawHTTP2.frame(type: 0x1, flags: 0x5, stream: stream, request("GET")))
            _ = await connection.read(timeout: .seconds(10), until: ended(stream))
            stream += 2
            warm = try await Self.framed(harness) > before
        }
        #expect(warm, "the relay never took a GET on this connection")
        let framed = try await Self.framed(harness)
        let body = Array(#"{"whole":true}"#.utf8)
        let fields = [("content-type", "application/json"), ("content-length", "\(body.count)")]
        connection.send(RawHTTP2.frame(type: 0x1, flags: 0x4, stream: stream, request("POST", fields)))
        connection.send(RawHTTP2.frame(type: 0x0, stream: stream, body))
        let answer = await connection.read(timeout: .seconds(10), until: ended(stream))
        // A reset would follow the answer's end at once.
        let after = await connection.read(timeout: .milliseconds(500)) { _ in false }
        let frames = RawHTTP2.frames(in: answer + after).filter { $0.stream == stream }
        #expect(frames.contains { $0.type == 0x1 }, "no answer")
        #expect(!frames.contains { $0.type == 0x3 }, "RST_STREAM \(frames.first { $0.type == 0x3 }?.errorCode ?? 0)")
        connection.send(RawHTTP2.frame(type: 0x0, flags: 0x1, stream: stream))
        #expect(try await Self.framed(harness) == framed + 1)
        // The connection goes on: the next request on it is answered.
        connection.send(RawHTTP2.frame(type: 0x1, flags: 0x5, stream: stream + 2, request("GET")))
        let next = await connection.read(timeout: .seconds(10), until: ended(stream + 2))
        #expect(RawHTTP2.frames(in: next).contains { $0.stream == stream + 2 && $0.type == 0x1 })
        await harness.stop()
    }

    /// A GET the rate limit refuses is not relayed: its HEADERS frame goes on to its stream,
    /// and the pipeline answers 429 in the envelope; the ones before it were relayed frame by
    /// frame.
    @Test func aFramedRequestTheRateLimitRefusesIsThePipelines429() async throws {
        let harness = try await GatewayHarness.start(
            gateway: ["ratelimit.read.limit": "30", "ratelimit.read.windowSeconds": "3600"], publicTLS: true)
        let token = try await harness.signUp("limited@example.com").accessToken
        try await Self.warmUp(harness, token: token)
        let framed = try await Self.framed(harness)
        var answered = 0
        var refusal: FullResponse?
        for _ in 0..<40 {
            let answer = try await harness.client.call(.GET, harness.url("/v1/reports/echo"), token: token)
            guard answer.status == 200 else {
                refusal = answer
                break
            }
            answered += 1
        }
        let refused = try #require(refusal)
        #expect(refused.status == 429)
        #expect(refused.errorCode == .rateLimitExceeded)
        #expect(try refused.decode(ErrorEnvelope.self).error.requestId == refused.header("x-request-id"))
        #expect(answered > 0)
        #expect(try await Self.framed(harness) == framed + answered)
        await harness.stop()
    }

    /// A connection with a request under way is not idle: the request outlives the idle timeout
    /// and then a shutdown, which waits for it (NIOHTTP2 tells its stream delegate, not the
    /// pipeline, which streams are open: counted from the pipeline, none ever were, and both
    /// cut the request off).
    @Test func aRequestUnderWayOutlivesTheIdleTimeoutAndAShutdown() async throws {
        let harness = try await GatewayHarness.start(gateway: ["limits.idleTimeoutSeconds": "1"], publicTLS: true)
        let token = try await harness.signUp("long@example.com").accessToken
        let held = Task {
            // On a slow host a second can pass between the sign-up and this request, and the
            // connection, idle, says GOAWAY as it is sent: refused before it reaches the service,
            // it is sent again on a new connection, as a client does. One that reached the
            // service (and was cut there) is not.
            var attempts = 1
            while true {
                do {
                    return try await harness.client.call(.GET, harness.url("/v1/reports/hold"), token: token).status
                } catch {
                    guard attempts < 3, harness.recorder.mostHeld == 0 else { throw error }
                    attempts += 1
                }
            }
        }
        #expect(await eventually(timeout: .seconds(20)) { harness.recorder.heldNow == 1 })
        try await Task.sleep(for: .milliseconds(2500))
        let stopping = Task { await harness.stopGateway() }
        try await Task.sleep(for: .milliseconds(300))
        harness.recorder.release()
        #expect(try await held.value == 200)
        await stopping.value
        await harness.stop()
    }

    /// Kept-alive connections a burst made are closed once idle for the gateway's idle timeout,
    /// so that they do not stay open for good (the HTTP/2 connection stays).
    @Test func idleKeptAliveConnectionsAreClosed() async throws {
        let harness = try await GatewayHarness.start(gateway: ["limits.idleTimeoutSeconds": "3"], publicTLS: true)
        let token = try await harness.signUp("idle@example.com").accessToken
        try await Self.warmUp(harness, token: token)
        let used = await eventually(timeout: .seconds(20), every: .milliseconds(50)) {
            let before = (try? await Self.keptAlive(harness)) ?? 0
            _ = try? await harness.client.call(.GET, harness.url("/v1/reports/echo"), token: token)
            return ((try? await Self.keptAlive(harness)) ?? 0) > before
        }
        #expect(used)
        let open = try Self.connections(toPort: harness.upstreamPort)
        #expect(open >= 2, "the HTTP/2 connection and a kept-alive one")
        #expect(try await Self.counter("pinhole_gateway_kept_alive_connections", of: harness) >= 1)
        // Swept every quarter of the 3 s (the client's own connection, idle, is closed meanwhile
        // too), and the gauge follows.
        #expect(
            await eventually(timeout: .seconds(15)) {
                ((try? Self.connections(toPort: harness.upstreamPort)) ?? 0) < open
            })
        #expect(
            await eventually(timeout: .seconds(15)) {
                (try? await Self.counter("pinhole_gateway_kept_alive_connections", of: harness)) == 0
            })
        await harness.stop()
    }

    /// This process's established TCP connections to `port` on loopback (Linux's `/proc/net/tcp`).
    static func connections(toPort port: Int) throws -> Int {
        // Read to the end: /proc's files say they are empty.
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/net/tcp"))
        defer { try? handle.close() }
        let table = String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
        let remote = String(format: "0100007F:%04X", port)
        return table.split(separator: "\n").dropFirst().filter { line in
            let columns = line.split(separator: " ")
            return columns.count > 3 && columns[2] == remote && columns[3] == "01"
        }.count
    }

    /// A body without a length is counted as it comes: past the route's limit, 413 from the relay
    /// (as the pipeline's `LimitedBody` answers), and the service never gets the end of it.
    @Test func aBodyPastTheLimitIsA413FromTheRelay() async throws {
        let harness = try await GatewayHarness.start(gateway: ["limits.jsonBytes": "1024"], publicTLS: true)
        let token = try await harness.signUp("large@example.com").accessToken
        try await Self.warmUp(harness, token: token)
        let before = try await Self.relayed(harness)
        var request = HTTPClientRequest(url: harness.url("/v1/reports/echo"))
        request.method = .POST
        request.headers.add(name: "authorization", value: "Bearer \(token)")
        request.body = .stream(Self.unsized(4 * 512), length: .unknown)
        let response = try await harness.client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 16)
        #expect(response.status.code == 413)
        #expect(
            try JSONCoding.decoder().decode(ErrorEnvelope.self, from: Data(body.readableBytesView)).error.code
                == .payloadTooLarge
        )
        #expect(try await Self.relayed(harness) == before + 1)
        await harness.stop()
    }

    /// A request waiting for its connection's turn does not read its body (an unsized one,
    /// here past the route's limit): when its turn comes, the relay reads it and answers 413.
    @Test func aQueuedRequestsBodyPastTheLimitIsA413WhenItsTurnComes() async throws {
        let harness = try await GatewayHarness.start(
            gateway: ["limits.jsonBytes": "1024", "limits.concurrentRequestsPerConnection": "1"], publicTLS: true)
        let token = try await harness.signUp("queued@example.com").accessToken
        try await Self.warmUp(harness, token: token)
        let before = try await Self.relayed(harness)
        let held = Task { try await harness.client.call(.GET, harness.url("/v1/reports/hold"), token: token).status }
        #expect(await eventually(timeout: .seconds(20)) { harness.recorder.heldNow == 1 })
        var request = HTTPClientRequest(url: harness.url("/v1/reports/echo"))
        request.method = .POST
        request.headers.add(name: "authorization", value: "Bearer \(token)")
        request.body = .stream(Self.unsized(4 * 512), length: .unknown)
        let posted = Task { try await harness.client.execute(request, timeout: .seconds(30)).status.code }
        // Time for the four chunks to arrive while the turn is taken (a loaded machine is slow).
        try await Task.sleep(for: .seconds(1))
        harness.recorder.release()
        #expect(try await posted.value == 413)
        #expect(try await held.value == 200)
        // Both were the relay's.
        #expect(try await Self.relayed(harness) == before + 2)
        await harness.stop()
    }

    /// A JSON body of 300 KB: more than the window a stream may send before its body is read.
    static let largeBody = "{\"reason\":\"\(String(repeating: "x", count: 300_000))\"}"

    /// Holds the connection's one turn with a GET the service keeps (`holdBody` makes it the
    /// pipeline's), sends `body` in a POST meanwhile (`sized`: with its length) and gives the
    /// body a second to arrive while the turn is taken, then lets the GET go: both must be
    /// answered, and the service must have got all of `body` (unless the POST is `expecting`
    /// another status than 200).
    static func post(
        _ body: String, whileTurnIsHeld harness: GatewayHarness, token: String, holdBody: Data? = nil,
        sized: Bool = true, expecting: UInt = 200
    ) async throws {
        let held = Task {
            try await harness.client.call(.GET, harness.url("/v1/reports/hold"), token: token, bytes: holdBody).status
        }
        #expect(await eventually(timeout: .seconds(20)) { harness.recorder.heldNow == 1 })
        let posted = Task {
            var request = HTTPClientRequest(url: harness.url("/v1/reports/echo"))
            request.method = .POST
            request.headers.add(name: "authorization", value: "Bearer \(token)")
            let bytes = ByteBuffer(string: body)
            if sized {
                request.body = .bytes(bytes)
            } else {
                let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
                continuation.yield(bytes)
                continuation.finish()
                request.body = .stream(stream, length: .unknown)
            }
            let response = try await harness.client.execute(request, timeout: .seconds(30))
            let echoed = try await response.body.collect(upTo: 1 << 20)
            return (response.status.code, Data(echoed.readableBytesView))
        }
        try await Task.sleep(for: .seconds(1))
        harness.recorder.release()
        #expect(try await held.value == 200)
        let (status, echoed) = try await posted.value
        #expect(status == expecting)
        guard expecting == 200 else { return }
        #expect(try JSONCoding.decoder().decode([String: String].self, from: echoed)[":body"] == body)
    }

    /// Sends a request the relay takes until it has its connection to the service on the
    /// client connection's event loop (the first go through the pipeline meanwhile).
    static func warmUp(_ harness: GatewayHarness, token: String) async throws {
        let warm = await eventually(timeout: .seconds(20), every: .milliseconds(50)) {
            let before = (try? await relayed(harness)) ?? 0
            _ = try? await harness.client.call(.GET, harness.url("/v1/reports/echo"), token: token)
            return ((try? await relayed(harness)) ?? 0) > before
        }
        #expect(warm, "the relay never took a request")
    }

    /// A body of `bytes` in 512-byte chunks, sent without a length.
    static func unsized(_ bytes: Int) -> AsyncStream<ByteBuffer> {
        let (stream, continuation) = AsyncStream.makeStream(of: ByteBuffer.self)
        for _ in 0..<(bytes / 512) { continuation.yield(ByteBuffer(repeating: 0x61, count: 512)) }
        continuation.finish()
        return stream
    }

    /// The gateway's count of relayed requests, from its `/metrics`.
    static func relayed(_ harness: GatewayHarness) async throws -> Int {
        try await counter("pinhole_gateway_relayed_total", of: harness)
    }

    /// Of those, the requests carried on a kept-alive HTTP/1.1 connection.
    static func keptAlive(_ harness: GatewayHarness) async throws -> Int {
        try await counter("pinhole_gateway_relayed_kept_alive_total", of: harness)
    }

    /// Of those, the requests answered frame by frame from the client's connection.
    static func framed(_ harness: GatewayHarness) async throws -> Int {
        try await counter("pinhole_gateway_relayed_frames_total", of: harness)
    }

    static func counter(_ name: String, of harness: GatewayHarness) async throws -> Int {
        let text = try await harness.client.call(.GET, harness.url("/metrics")).text
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? 0
    }

    /// An answer's header names, but for the date.
    static func names(_ response: FullResponse) -> [String] {
        response.headers.map { $0.0.lowercased() }.filter { $0 != "date" }.sorted()
    }
}
