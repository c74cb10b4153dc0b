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

    let http1: HTTP1Channel
    let idleTimeout: Duration?
    let gracefulCloseTimeout: Duration?

    init(responder: @escaping HTTPChannelHandler.Responder, configuration: HTTP2ChannelConfiguration) {
        self.http1 = HTTP1Channel(responder: responder, configuration: configuration.streamConfiguration)
        self.idleTimeout = configuration.idleTimeout
        self.gracefulCloseTimeout = configuration.gracefulCloseTimeout
    }

    static var nioConfiguration: NIOHTTP2Handler.Configuration {
        var configuration = NIOHTTP2Handler.Configuration()
        configuration.connection.initialSettings =
            nioDefaultSettings.filter { $0.parameter != .initialWindowSize } + [
                HTTP2Setting(parameter: .initialWindowSize, value: streamWindow)
            ]
        configuration.connection.targetWindowSize = connectionWindow
        configuration.stream.targetWindowSize = streamWindow
        return configuration
    }

    /// Configures `channel` (where HTTP/2 was negotiated) and returns its stream multiplexer.
    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Connection> {
        channel.eventLoop.makeCompletedFuture {
            if let idleTimeout {
                try channel.pipeline.syncOperations.addHandler(IdleStateHandler(allTimeout: TimeAmount(idleTimeout)))
            }
            let connection = try channel.pipeline.syncOperations.configureAsyncHTTP2Pipeline(
                mode: .server, configuration: Self.nioConfiguration
            ) { stream in
                stream.eventLoop.makeCompletedFuture {
                    try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTPServerCodec())
                    return try HTTP1Channel.Value(wrappingChannelSynchronously: stream)
                }
            }
            try channel.pipeline.syncOperations.addHandler(
                HTTP2ConnectionCloser(grace: gracefulCloseTimeout.map(TimeAmount.init)))
            return connection
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

    private let grace: TimeAmount?
    private var open: Set<HTTP2StreamID> = []
    private var lastStream: HTTP2StreamID = .rootStream
    private var closing = false

    init(grace: TimeAmount?) {
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
            } else if let grace {
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
            let negotiation = NIOTypedApplicationProtocolNegotiationHandler<Negotiated> { result in
                switch result {
                case .negotiated("h2"):
                    return http2.setup(channel: channel, logger: logger).map { .http2($0) }
                default:
                    return http2.http1.setup(channel: channel, logger: logger).map { .http1_1($0) }
                }
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
    static func builder(tls: TLSConfiguration, configuration: HTTP2ChannelConfiguration) throws -> HTTPServerBuilder {
        var tls = tls
        tls.applicationProtocols = ["h2", "http/1.1"]
        let context = try NIOSSLContext(configuration: tls)
        return HTTPServerBuilder { responder in
            PublicTLSChannel(context: context, http2: PublicHTTP2(responder: responder, configuration: configuration))
        }
    }
}
