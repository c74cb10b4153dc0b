import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOHTTP2
import NIOHTTPTypesHTTP2
import NIOSSL
import NIOTLS

/// The public listener's HTTP/2: Hummingbird's own HTTP/2 channel, but with flow-control
/// windows sized for uploads.
///
/// HTTP/2's default stream window is 64 KiB, and Hummingbird 2.28 gives NIO a fixed default
/// configuration; a 100 MiB upload then spends most of its time waiting for window updates
/// (`docs/PERFORMANCE.md`: 1 MiB windows double tus throughput with memory unchanged). Each
/// stream is served by Hummingbird's public HTTP/1 request handling; ``HTTP2ConnectionCloser``
/// closes idle connections and drains them on graceful shutdown.
struct PublicHTTP2: Sendable {
    typealias Connection = NIOHTTP2Handler.AsyncStreamMultiplexer<HTTP1Channel.Value>

    /// What a stream may have in flight before the client waits for a window update, and the
    /// same for the whole connection.
    static let streamWindow = 1 << 20
    static let connectionWindow = 4 << 20
    /// Requests one HTTP/2 connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS);
    /// a client that opens more gets those refused (`REFUSED_STREAM`) and retries them.
    static let maxConcurrentStreams = 100

    let http1: HTTP1Channel
    let limits: PublicLimits

    /// `responder` answers every request; HTTP/1.1 connections get ``HTTP1Guard`` behind the
    /// parser, whose header limit is a hard cap well above `limits.headerBytes` (which the
    /// router enforces with a proper 431 for both protocols).
    init(responder: @escaping HTTPChannelHandler.Responder, limits: PublicLimits) {
        let headTimeout = limits.idleTimeout
        let configuration = HTTP1Channel.Configuration(
            additionalChannelHandlers: [HTTP1Guard(headTimeout: headTimeout)], idleTimeout: nil,
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: limits.headerCap, maxHeaderListSize: limits.headerCap, maxHeaderFieldCount: 500))
        self.http1 = HTTP1Channel(responder: responder, configuration: configuration)
        self.limits = limits
    }

    var nioConfiguration: NIOHTTP2Handler.Configuration {
        var configuration = NIOHTTP2Handler.Configuration()
        let replaced: Set<HTTP2SettingsParameter> = [.initialWindowSize, .maxConcurrentStreams, .maxHeaderListSize]
        configuration.connection.initialSettings =
            nioDefaultSettings.filter { !replaced.contains($0.parameter) } + [
                HTTP2Setting(parameter: .initialWindowSize, value: Self.streamWindow),
                HTTP2Setting(parameter: .maxConcurrentStreams, value: Self.maxConcurrentStreams),
                HTTP2Setting(parameter: .maxHeaderListSize, value: limits.headerCap),
            ]
        configuration.connection.targetWindowSize = Self.connectionWindow
        configuration.stream.targetWindowSize = Self.streamWindow
        return configuration
    }

    /// Configures `channel` (where HTTP/2 was negotiated) and returns its stream multiplexer.
    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Connection> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(IdleStateHandler(allTimeout: limits.idleTimeout))
            let connection = try channel.pipeline.syncOperations.configureAsyncHTTP2Pipeline(
                mode: .server, configuration: nioConfiguration
            ) { stream in
                stream.eventLoop.makeCompletedFuture {
                    try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTPServerCodec())
                    return try HTTP1Channel.Value(wrappingChannelSynchronously: stream)
                }
            }
            try channel.pipeline.syncOperations.addHandler(HTTP2ConnectionCloser(grace: limits.grace))
            return connection
        }
    }

    /// Puts a ``ConnectionGuard`` first in a new connection's pipeline.
    func addGuard(to channel: any Channel) throws -> NIOLoopBound<ConnectionGuard> {
        let connectionGuard = ConnectionGuard(limits: limits.connection, counter: limits.counter)
        try channel.pipeline.syncOperations.addHandler(connectionGuard, position: .first)
        return NIOLoopBound(connectionGuard, eventLoop: channel.eventLoop)
    }

    /// Sets up the protocol `result` chose (HTTP/2 for `h2`, HTTP/1.1 otherwise) and tells
    /// the connection's guard.
    func negotiated(
        _ result: ALPNResult, channel: any Channel, connectionGuard: NIOLoopBound<ConnectionGuard>, logger: Logger
    ) -> EventLoopFuture<NIONegotiatedHTTPVersion<HTTP1Channel.Value, Connection>> {
        switch result {
        case .negotiated("h2"):
            connectionGuard.value.negotiated(.http2)
            return setup(channel: channel, logger: logger).map { .http2($0) }
        default:
            connectionGuard.value.negotiated(.http1)
            return http1.setup(channel: channel, logger: logger).map { .http1_1($0) }
        }
    }

    /// Serves every stream of the connection, each as one request.
    func handle(_ connection: Connection, logger: Logger) async {
        do {
            try await withThrowingDiscardingTaskGroup { group in
                for try await stream in connection.inbound {
                    group.addTask { await http1.handle(value: stream, logger: logger) }
                }
            }
        } catch {
            logger.debug("HTTP/2 connection ended: \(error)")
        }
    }
}

/// Ends an HTTP/2 connection when the server shuts down (a GOAWAY naming the last stream
/// begun, then close once the open streams are done, or after `grace`) and when it has been
/// idle (no open stream when the idle timer fires).
final class HTTP2ConnectionCloser: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private let grace: TimeAmount
    private var open: Set<HTTP2StreamID> = []
    private var lastStream: HTTP2StreamID = .rootStream
    private var closing = false

    init(grace: TimeAmount) {
        self.grace = grace
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let created as NIOHTTP2StreamCreatedEvent:
            open.insert(created.streamID)
            lastStream = max(lastStream, created.streamID)
        case let closed as StreamClosedEvent:
            open.remove(closed.streamID)
            if closing, open.isEmpty { context.close(promise: nil) }
        case is ChannelShouldQuiesceEvent:
            guard !closing else { break }
            closing = true
            let goAway = HTTP2Frame(
                streamID: .rootStream, payload: .goAway(lastStreamID: lastStream, errorCode: .noError, opaqueData: nil))
            context.writeAndFlush(wrapOutboundOut(goAway), promise: nil)
            if open.isEmpty {
                context.close(promise: nil)
            } else {
                let channel = context.channel
                context.eventLoop.scheduleTask(in: grace) { channel.close(promise: nil) }
            }
        case let idle as IdleStateHandler.IdleStateEvent where idle == .all:
            if open.isEmpty { context.close(promise: nil) }
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// TLS with ALPN on the public port: `h2` gets ``PublicHTTP2``, anything else HTTP/1.1.
struct PublicTLSChannel: ServerChildChannel {
    typealias Negotiated = NIONegotiatedHTTPVersion<HTTP1Channel.Value, PublicHTTP2.Connection>

    struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<Negotiated>
        let channel: any Channel
    }

    let context: NIOSSLContext
    let http2: PublicHTTP2

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let connectionGuard = try http2.addGuard(to: channel)
            let negotiation = NIOTypedApplicationProtocolNegotiationHandler<Negotiated> { result in
                http2.negotiated(result, channel: channel, connectionGuard: connectionGuard, logger: logger)
            }
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
            try channel.pipeline.syncOperations.addHandler(negotiation)
            return Value(negotiated: negotiation.protocolNegotiationResult, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.negotiated.get() {
            case .http1_1(let connection): await http2.http1.handle(value: connection, logger: logger)
            case .http2(let connection): await http2.handle(connection, logger: logger)
            }
        } catch {
            logger.debug("TLS protocol negotiation failed: \(error)")
        }
    }

    /// The server builder for ``Application``: `tls` gets ALPN `h2` and `http/1.1`.
    static func builder(tls: TLSConfiguration, limits: PublicLimits) throws -> HTTPServerBuilder {
        var tls = tls
        tls.applicationProtocols = ["h2", "http/1.1"]
        let context = try NIOSSLContext(configuration: tls)
        return HTTPServerBuilder { responder in
            PublicTLSChannel(context: context, http2: PublicHTTP2(responder: responder, limits: limits))
        }
    }
}
