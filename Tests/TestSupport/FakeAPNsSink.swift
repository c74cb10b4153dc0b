import Foundation
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import NIOSSL
import Synchronization

/// A stand-in for APNs made for throughput benchmarks: HTTP/2 over TLS (ALPN `h2` only, as
/// Apple's), 500 concurrent streams a connection (what APNs advertises), `POST /3/device/{token}`
/// checked as Apple checks it (a 64-hex-digit token, an ES256 provider token of the team's key,
/// `apns-topic`, `apns-push-type`, a JSON payload with `aps` of at most 4 KiB), answered with
/// `200` and an `apns-id` or Apple's error, and counted, never kept.
///
/// ``FakePushProviders`` serves all three providers through Hummingbird, a task and a router per
/// request: right for tests, but in a fan-out benchmark it took 130–145 µs of CPU per push beside
/// alerts' 290–330, on the same two cores. Here each stream is answered on its event loop as its
/// last frame is read, so the answers to a read's requests leave in one write (44–54 µs).
public final class FakeAPNsSink: Sendable {
    public let url: String
    public let caFile: URL
    public let apnsKeyFile: URL
    public let teamID = FakeProviderFiles.apnsTeamID
    public let keyID = FakeProviderFiles.apnsKeyID
    let tokens: ProviderTokenCheck
    private let counts = Mutex(Counts())
    private let server = Mutex<(any Channel)?>(nil)

    struct Counts {
        var accepted = 0
        var refused: [String: Int] = [:]
        var open: [ObjectIdentifier: any Channel] = [:]
        /// The connections that carried an accepted push (a client may open more than it uses).
        var carrying: Set<ObjectIdentifier> = []
    }

    private init(url: String, files: FakeProviderFiles) throws {
        self.url = url
        self.caFile = files.caFile
        self.apnsKeyFile = files.apnsKeyFile
        self.tokens = try ProviderTokenCheck(files.apnsKey.publicKey)
    }

    /// Starts the sink on a free loopback port, its key and certificate under `directory`.
    public static func start(directory: TestDataDirectory) async throws -> FakeAPNsSink {
        let files = try FakeProviderFiles.make(in: directory, folder: "fake-apns")
        let context = try NIOSSLContext(configuration: try files.serverTLS(protocols: ["h2"]))
        let port = try FreePort.next()
        let sink = try FakeAPNsSink(url: "https://127.0.0.1:\(port)", files: files)
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    sink.opened(channel)
                    try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
                    var connection = NIOHTTP2Handler.ConnectionConfiguration()
                    connection.initialSettings = [
                        HTTP2Setting(parameter: .maxConcurrentStreams, value: 500),
                        HTTP2Setting(parameter: .maxHeaderListSize, value: 8000),
                    ]
                    _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .server, connectionConfiguration: connection, streamConfiguration: .init()
                    ) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandler(PushStream(sink: sink))
                        }
                    }
                }
            }
            .bind(host: "127.0.0.1", port: port).get()
        sink.server.withLock { $0 = server }
        return sink
    }

    /// Closes the listener and every connection.
    public func stop() async {
        let (server, open) = (server.withLock { $0 }, counts.withLock { Array($0.open.values) })
        try? await server?.close()
        for connection in open { try? await connection.close() }
    }

    /// Pushes accepted so far, and over how many connections pushes came.
    public func accepted() -> (pushes: Int, connections: Int) {
        counts.withLock { ($0.accepted, $0.carrying.count) }
    }

    /// Refusals so far by Apple's reason (`BadDeviceToken`, `InvalidProviderToken`, …).
    public var refused: [String: Int] { counts.withLock { $0.refused } }

    private func opened(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        counts.withLock { $0.open[id] = channel }
        channel.closeFuture.whenComplete { [self] _ in _ = counts.withLock { $0.open.removeValue(forKey: id) } }
    }

    /// Counts one request's outcome on `connection`: nil when accepted, else Apple's status and
    /// reason.
    func judge(
        _ headers: HPACKHeaders, body: ByteBuffer?, tokenValid: Bool, connection: ObjectIdentifier?
    ) -> (status: Int, reason: String)? {
        let refusal = Self.refusal(headers, body: body, tokenValid: tokenValid)
        counts.withLock { counts in
            if let refusal {
                counts.refused[refusal.reason, default: 0] += 1
            } else {
                counts.accepted += 1
                if let connection { counts.carrying.insert(connection) }
            }
        }
        return refusal
    }

    private static func refusal(
        _ headers: HPACKHeaders, body: ByteBuffer?, tokenValid: Bool
    ) -> (status: Int, reason: String)? {
        let device = "/3/device/"
        guard headers.first(name: ":method") == "POST" else { return (405, "MethodNotAllowed") }
        guard let path = headers.first(name: ":path"), path.hasPrefix(device) else { return (404, "BadPath") }
        guard tokenValid else { return (403, "InvalidProviderToken") }
        guard isDeviceToken(path.utf8.dropFirst(device.utf8.count)) else { return (400, "BadDeviceToken") }
        guard !(headers.first(name: "apns-topic") ?? "").isEmpty else { return (400, "MissingTopic") }
        guard ["alert", "background"].contains(headers.first(name: "apns-push-type") ?? "") else {
            return (400, "InvalidPushType")
        }
        guard (body?.readableBytes ?? 0) <= 4096 else { return (413, "PayloadTooLarge") }
        guard isPayload(body) else { return (400, "BadPayload") }
        return nil
    }

    /// The provider token of `headers`' `authorization: bearer …`, if any.
    static func providerToken(_ headers: HPACKHeaders) -> String? {
        guard let authorization = headers.first(name: "authorization"), authorization.hasPrefix("bearer ") else {
            return nil
        }
        return String(authorization.dropFirst("bearer ".count))
    }

    private static func isDeviceToken(_ token: Substring.UTF8View) -> Bool {
        token.count == 64 && token.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    private static func isPayload(_ body: ByteBuffer?) -> Bool {
        guard let body, let object = try? JSONSerialization.jsonObject(with: Data(body.readableBytesView)),
            let payload = object as? [String: Any]
        else { return false }
        return payload["aps"] is [String: Any]
    }
}

/// One request's stream: the headers and body gathered, then answered as the last frame is read.
private final class PushStream: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    let sink: FakeAPNsSink
    var headers = HPACKHeaders()
    var body: ByteBuffer?

    init(sink: FakeAPNsSink) {
        self.sink = sink
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .headers(let frame):
            headers = frame.headers
            if frame.endStream { ended(context) }
        case .data(let frame):
            if case .byteBuffer(var bytes) = frame.data {
                if body == nil { body = bytes } else { body!.writeBuffer(&bytes) }
            }
            if frame.endStream { ended(context) }
        default:
            break
        }
    }

    private func ended(_ context: ChannelHandlerContext) {
        let token = FakeAPNsSink.providerToken(headers) ?? ""
        if let known = sink.tokens.known(token) {
            answer(context, judge(context, tokenValid: known))
            return
        }
        // A token not seen before: its signature is verified once, off the event loop.
        let promise = context.eventLoop.makePromise(of: Bool.self)
        promise.completeWithTask { [tokens = sink.tokens] in await tokens.verify(token) }
        promise.futureResult.assumeIsolated().whenSuccess { valid in
            self.answer(context, self.judge(context, tokenValid: valid))
        }
    }

    private func judge(_ context: ChannelHandlerContext, tokenValid: Bool) -> (status: Int, reason: String)? {
        let connection = context.channel.parent.map { ObjectIdentifier($0) }
        return sink.judge(headers, body: body, tokenValid: tokenValid, connection: connection)
    }

    private func answer(_ context: ChannelHandlerContext, _ refusal: (status: Int, reason: String)?) {
        guard let refusal else {
            let headers: HPACKHeaders = [":status": "200", "apns-id": UUID().uuidString]
            context.writeAndFlush(wrapOutboundOut(.headers(.init(headers: headers, endStream: true))), promise: nil)
            return
        }
        let headers: HPACKHeaders = [":status": "\(refusal.status)", "content-type": "application/json"]
        context.write(wrapOutboundOut(.headers(.init(headers: headers))), promise: nil)
        let body = context.channel.allocator.buffer(string: #"{"reason":"\#(refusal.reason)"}"#)
        context.writeAndFlush(wrapOutboundOut(.data(.init(data: .byteBuffer(body), endStream: true))), promise: nil)
    }
}
