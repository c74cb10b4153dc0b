import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP2
import NIOHTTPTypesHTTP2
import NIOSSL
import NIOTLS

/// HTTP/2 as every Pinhole listener speaks it: Hummingbird's request handling on each stream,
/// but with flow-control windows sized for uploads and the connection's limits chosen here.
///
/// HTTP/2's default stream window is 64 KiB, and Hummingbird 2.28 gives NIO a fixed default
/// configuration; a 100 MiB upload then spends most of its time waiting for window updates
/// (`docs/PERFORMANCE.md`: through the gateway, uploads ran at 0.19× `sha256sum` with 64 KiB
/// service windows). ``HTTP2ConnectionCloser`` closes idle connections and drains them on
/// graceful shutdown; a ``FlushCoalescer`` sends what the streams wrote in one turn of the
/// event loop in one flush.
///
/// HTTP/1.1 connections get `HTTP1Connections` (Hummingbird's ``HTTP1Channel`` for the services;
/// the gateway's also takes WebSocket upgrades); HTTP/2 streams get ``HTTP1Channel``: every
/// stream, through NIO's async multiplexer, or with `prepareStream` only those its handlers
/// hand over (the gateway's relay answers most requests itself on the event loop, and those
/// streams never become a task).
public struct WideWindowHTTP2<HTTP1Connections: ServerChildChannel>: Sendable {
    /// The streams of one HTTP/2 connection that Hummingbird serves.
    public enum Connection: Sendable {
        case every(NIOHTTP2Handler.AsyncStreamMultiplexer<HTTP1Channel.Value>)
        case handedOver(AsyncStream<HTTP1Channel.Value>)
    }

    public typealias Negotiated = NIONegotiatedHTTPVersion<HTTP1Connections.Value, Connection>

    public static var streamWindow: Int { HTTP2Windows.stream }
    public static var connectionWindow: Int { HTTP2Windows.connection }

    /// Told of a connection whose peer flooded it (resets, CONTINUATION or control frames,
    /// stream errors), with NIOHTTP2's error, just before it is closed.
    public typealias Misbehaviour = @Sendable (any Channel, any Error) -> Void

    public let http1: HTTP1Channel
    public let connections: HTTP1Connections
    let maxConcurrentStreams: Int
    let maxHeaderListSize: Int
    let idleTimeout: TimeAmount
    let grace: TimeAmount
    let misbehaviour: Misbehaviour
    let prepareStream: PrepareStream?
    let prepareConnection: PrepareConnection?
    let windowsOnDemand: Bool

    /// Adds handlers to a new stream's pipeline right behind its HTTP types codec, ahead of
    /// Hummingbird's (the gateway's relay, which answers the requests it can on the event loop).
    /// The stream goes to Hummingbird only when they call the ``HandOver`` they are given,
    /// from the stream's event loop, before passing its first read on.
    public typealias PrepareStream =
        @Sendable (ChannelPipeline.SynchronousOperations, _ handOver: @escaping HandOver) throws -> Void
    public typealias HandOver = @Sendable (any Channel) -> Void

    /// Adds handlers to a new HTTP/2 connection's pipeline between NIOHTTP2's handler and its
    /// stream multiplexer (with `prepareStream` only): they see every frame before the streams
    /// do and may answer a stream's request themselves, frame by frame, so that it never becomes
    /// a stream channel (the gateway's ``FrameRelay``). What they pass on reaches the streams.
    public typealias PrepareConnection = @Sendable (ChannelPipeline.SynchronousOperations) throws -> Void

    /// `http1` serves each stream's request, `connections` HTTP/1.1 connections. A client that
    /// opens more than `maxConcurrentStreams` streams at once gets `REFUSED_STREAM` for the
    /// excess. With `windowsOnDemand`, a stream may send ``HTTP2Windows/waiting`` of its body
    /// until what reads it asks for the full window (``WidenStreamWindow``,
    /// ``OnDemandStreamWindow``): for a listener whose requests may wait before they are read.
    public init(
        http1: HTTP1Channel, connections: HTTP1Connections, maxConcurrentStreams: Int = 100,
        maxHeaderListSize: Int = 1 << 14, idleTimeout: TimeAmount, grace: TimeAmount,
        misbehaviour: @escaping Misbehaviour = { _, _ in }, prepareStream: PrepareStream? = nil,
        prepareConnection: PrepareConnection? = nil, windowsOnDemand: Bool = false
    ) {
        self.windowsOnDemand = windowsOnDemand
        self.prepareStream = prepareStream
        self.prepareConnection = prepareConnection
        self.http1 = http1
        self.connections = connections
        self.maxConcurrentStreams = maxConcurrentStreams
        self.maxHeaderListSize = maxHeaderListSize
        self.idleTimeout = idleTimeout
        self.grace = grace
        self.misbehaviour = misbehaviour
    }

    var nioConfiguration: NIOHTTP2Handler.Configuration {
        var configuration = NIOHTTP2Handler.Configuration()
        let streamWindow = windowsOnDemand ? HTTP2Windows.waiting : HTTP2Windows.stream
        let replaced: Set<HTTP2SettingsParameter> = [.initialWindowSize, .maxConcurrentStreams, .maxHeaderListSize]
        configuration.connection.initialSettings =
            nioDefaultSettings.filter { !replaced.contains($0.parameter) } + [
                HTTP2Setting(parameter: .initialWindowSize, value: streamWindow),
                HTTP2Setting(parameter: .maxConcurrentStreams, value: maxConcurrentStreams),
                HTTP2Setting(parameter: .maxHeaderListSize, value: maxHeaderListSize),
            ]
        configuration.connection.targetWindowSize = HTTP2Windows.connection
        configuration.stream.targetWindowSize = streamWindow
        return configuration
    }

    /// Configures `channel` (where HTTP/2 was chosen) and returns its streams for Hummingbird.
    public func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Connection> {
        channel.eventLoop.makeCompletedFuture {
            let operations = channel.pipeline.syncOperations
            try operations.addHandler(IdleStateHandler(allTimeout: idleTimeout))
            let closer = HTTP2ConnectionCloser(
                grace: grace, misbehaviour: misbehaviour,
                countsStreamEvents: prepareStream != nil && prepareConnection != nil)
            let openStreams = HTTP2ConnectionCloser.OpenStreams(
                closer: NIOLoopBound(closer, eventLoop: channel.eventLoop))
            let connection: Connection
            if let prepareStream {
                connection = try handingOver(channel, openStreams, prepareStream)
            } else {
                connection = .every(
                    try operations.configureAsyncHTTP2Pipeline(
                        mode: .server, streamDelegate: openStreams, configuration: nioConfiguration
                    ) {
                        stream in
                        stream.eventLoop.makeCompletedFuture {
                            try addStreamHandlers(stream.pipeline.syncOperations)
                            try stream.pipeline.syncOperations.addHandler(BodyChunkCopier())
                            return try HTTP1Channel.Value(wrappingChannelSynchronously: stream)
                        }
                    })
            }
            try operations.addHandler(closer)
            try FlushCoalescer.installBelowHTTP2(in: operations)
            return connection
        }
    }

    /// HTTP/2 on `channel` whose streams get `prepareStream`'s handlers and reach Hummingbird
    /// only when handed over. (The services keep NIO's async multiplexer, which makes every
    /// stream a task's: behind this one, alerts gave a live stream's place back only seconds
    /// after the gateway reset the stream, and `LiveStreamGatewayTests` took 22 s instead of
    /// 2; why was not found.)
    private func handingOver(
        _ channel: any Channel, _ openStreams: HTTP2ConnectionCloser.OpenStreams,
        _ prepareStream: @escaping PrepareStream
    ) throws -> Connection {
        let (streams, handedOver) = AsyncStream.makeStream(of: HTTP1Channel.Value.self)
        let handOver: HandOver = { stream in
            do {
                // Hummingbird's body chunks wait in a queue; a relayed stream's never do.
                try stream.pipeline.syncOperations.addHandler(BodyChunkCopier())
                handedOver.yield(try HTTP1Channel.Value(wrappingChannelSynchronously: stream))
            } catch {
                stream.close(promise: nil)
            }
        }
        let configuration = nioConfiguration
        let initializer: NIOChannelInitializer = { stream in
            stream.eventLoop.makeCompletedFuture {
                let operations = stream.pipeline.syncOperations
                try addStreamHandlers(operations)
                try prepareStream(operations, handOver)
            }
        }
        if let prepareConnection {
            // NIOHTTP2's handler and its multiplexer as two handlers, with the connection's own
            // between them; the closer counts the streams from the events they pass on.
            let operations = channel.pipeline.syncOperations
            try operations.addHandler(
                NIOHTTP2Handler(
                    mode: .server, connectionConfiguration: configuration.connection,
                    streamConfiguration: configuration.stream))
            try prepareConnection(operations)
            try operations.addHandler(
                HTTP2StreamMultiplexer(
                    mode: .server, channel: channel, targetWindowSize: configuration.stream.targetWindowSize,
                    outboundBufferSizeHighWatermark: configuration.stream.outboundBufferSizeHighWatermark,
                    outboundBufferSizeLowWatermark: configuration.stream.outboundBufferSizeLowWatermark,
                    inboundStreamInitializer: initializer))
        } else {
            _ = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                mode: .server, connectionConfiguration: configuration.connection,
                streamConfiguration: configuration.stream, streamDelegate: openStreams,
                inboundStreamInitializer: initializer)
        }
        channel.closeFuture.whenComplete { _ in handedOver.finish() }
        return .handedOver(streams)
    }

    /// What every stream's pipeline begins with: its window opened on demand (if so), the
    /// response's end on its last frame, and NIO's HTTP types codec.
    private func addStreamHandlers(_ operations: ChannelPipeline.SynchronousOperations) throws {
        if windowsOnDemand { try operations.addHandler(OnDemandStreamWindow()) }
        try operations.addHandler(StreamEndCoalescer())
        try operations.addHandler(HTTP2FramePayloadToHTTPServerCodec())
    }

    /// Serves the connection's streams, each as one request, until the connection closes.
    public func handle(_ connection: Connection, logger: Logger) async {
        switch connection {
        case .every(let multiplexer):
            do {
                try await withThrowingDiscardingTaskGroup { group in
                    for try await stream in multiplexer.inbound {
                        group.addTask { await http1.handle(value: stream, logger: logger) }
                    }
                }
            } catch {
                logger.debug("HTTP/2 connection ended: \(error)")
            }
        case .handedOver(let streams):
            await withDiscardingTaskGroup { group in
                for await stream in streams {
                    group.addTask { await http1.handle(value: stream, logger: logger) }
                }
            }
        }
    }

    /// Sets up the protocol `result` chose: HTTP/2 for `h2`, HTTP/1.1 otherwise.
    public func negotiated(
        _ result: ALPNResult, channel: any Channel, logger: Logger
    ) -> EventLoopFuture<Negotiated> {
        switch result {
        case .negotiated("h2"): setup(channel: channel, logger: logger).map { .http2($0) }
        default: connections.setup(channel: channel, logger: logger).map { .http1_1($0) }
        }
    }

    /// Serves a connection once its protocol is known.
    public func handle(negotiated: EventLoopFuture<Negotiated>, logger: Logger) async {
        do {
            switch try await negotiated.get() {
            case .http1_1(let connection): await connections.handle(value: connection, logger: logger)
            case .http2(let connection): await handle(connection, logger: logger)
            }
        } catch {
            logger.debug("protocol negotiation failed: \(error)")
        }
    }
}

extension WideWindowHTTP2 where HTTP1Connections == HTTP1Channel {
    /// `http1` serves each stream's request and HTTP/1.1 connections alike.
    public init(
        http1: HTTP1Channel, maxConcurrentStreams: Int = 100, maxHeaderListSize: Int = 1 << 14,
        idleTimeout: TimeAmount, grace: TimeAmount, misbehaviour: @escaping Misbehaviour = { _, _ in }
    ) {
        self.init(
            http1: http1, connections: http1, maxConcurrentStreams: maxConcurrentStreams,
            maxHeaderListSize: maxHeaderListSize, idleTimeout: idleTimeout, grace: grace, misbehaviour: misbehaviour)
    }
}

/// HTTP/2 flow-control windows of every Pinhole listener and of the gateway's upstream hop:
/// what a stream may have in flight before the sender waits for a window update, and the same
/// for the whole connection.
public enum HTTP2Windows {
    public static let stream = 1 << 20
    /// A stream's window before what reads its body asks for ``stream`` (``OnDemandStreamWindow``):
    /// the protocol's default.
    public static let waiting = 65_535
    public static let connection = 4 << 20
}

/// Ends an HTTP/2 connection when the server shuts down (a GOAWAY naming the last stream
/// begun, then close once the open streams are done, or after `grace`), when it has been
/// idle (no open stream when the idle timer fires: a GOAWAY too, then close a moment later),
/// and when the peer broke the protocol.
///
/// On a connection error NIOHTTP2 writes its GOAWAY and reports the error, but leaves the
/// connection open: its frame decoder then keeps every further byte the peer sends, so a
/// client writing endless CONTINUATION frames grew the gateway past 1 GiB in seconds.
///
/// The open streams come from ``OpenStreams``, NIOHTTP2's stream delegate: its inline
/// multiplexer tells only that, not the pipeline (this handler once counted the pipeline's
/// stream events, saw none, and closed connections whose requests outlived the idle timeout).
/// Behind NIOHTTP2's handler without its inline multiplexer (`countsStreamEvents`), the stream
/// events come through the pipeline, and are counted from there.
final class HTTP2ConnectionCloser: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// NIOHTTP2's stream delegate for the connection, called on its event loop.
    struct OpenStreams: NIOHTTP2StreamDelegate {
        let closer: NIOLoopBound<HTTP2ConnectionCloser>

        func streamCreated(_ id: HTTP2StreamID, channel: any Channel) { closer.value.opened(id) }
        func streamClosed(_ id: HTTP2StreamID, channel: any Channel) { closer.value.closed(id) }
    }

    private let grace: TimeAmount
    private let misbehaviour: WideWindowHTTP2.Misbehaviour
    private var open: Set<HTTP2StreamID> = []
    private var lastStream: HTTP2StreamID = .rootStream
    private var closing = false
    private var context: ChannelHandlerContext?

    private let countsStreamEvents: Bool

    init(grace: TimeAmount, misbehaviour: @escaping WideWindowHTTP2.Misbehaviour, countsStreamEvents: Bool = false) {
        self.grace = grace
        self.misbehaviour = misbehaviour
        self.countsStreamEvents = countsStreamEvents
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func opened(_ stream: HTTP2StreamID) {
        open.insert(stream)
        lastStream = max(lastStream, stream)
    }

    func closed(_ stream: HTTP2StreamID) {
        open.remove(stream)
        // Told while NIOHTTP2 flushes the stream's last frames: closed once they are out.
        if closing, open.isEmpty, let channel = context?.channel {
            channel.eventLoop.execute { channel.close(promise: nil) }
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        switch event {
        case let created as NIOHTTP2StreamCreatedEvent where countsStreamEvents:
            opened(created.streamID)
        case let closedStream as StreamClosedEvent where countsStreamEvents:
            closed(closedStream.streamID)
        case is ChannelShouldQuiesceEvent:
            goAway(context: context, closeIn: open.isEmpty ? .zero : grace)
        case let idle as IdleStateHandler.IdleStateEvent where idle == .all:
            if open.isEmpty { goAway(context: context, closeIn: Self.idleLinger) }
        default:
            break
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// How long an idle connection stays open after its GOAWAY. A request the client sent
    /// before the GOAWAY reached it names a stream past the last one: NIOHTTP2 refuses it
    /// (RST_STREAM REFUSED_STREAM), and the client, told that it was never begun, sends it again
    /// on a new connection. (Closed without a GOAWAY, a request sent as the socket closed failed,
    /// and the client could not tell whether it had been begun.)
    static let idleLinger = TimeAmount.seconds(1)

    /// Sends GOAWAY naming the last stream begun (no new streams after it) and closes the
    /// connection once its open streams are done, or after `delay` at the latest.
    private func goAway(context: ChannelHandlerContext, closeIn delay: TimeAmount) {
        guard !closing else { return }
        closing = true
        let goAway = HTTP2Frame(
            streamID: .rootStream, payload: .goAway(lastStreamID: lastStream, errorCode: .noError, opaqueData: nil))
        context.writeAndFlush(wrapOutboundOut(goAway), promise: nil)
        if delay == .zero {
            context.close(promise: nil)
        } else {
            let channel = context.channel
            context.eventLoop.scheduleTask(in: delay) { channel.close(promise: nil) }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        let flood = Self.isFlood(error)
        if flood || Self.isProtocolError(error) {
            if flood { misbehaviour(context.channel, error) }
            context.flush()  // the GOAWAY NIOHTTP2 queued for the peer
            context.close(promise: nil)
        }
        context.fireErrorCaught(error)
    }

    /// Errors NIOHTTP2 answers with a GOAWAY because the peer sent more than any client needs.
    static func isFlood(_ error: any Error) -> Bool {
        switch error {
        case is NIOHTTP2Errors.ExcessivelyLargeHeaderBlock, is NIOHTTP2Errors.ExcessiveContinuationFrames,
            is NIOHTTP2Errors.ExcessiveRSTFrames, is NIOHTTP2Errors.ExcessiveEmptyDataFrames,
            is NIOHTTP2Errors.ExcessiveNumberOfGlitches, is NIOHTTP2Errors.ExcessiveControlFrames,
            is NIOHTTP2Errors.ExcessiveStreamErrors:
            true
        default:
            false
        }
    }

    /// Other errors NIOHTTP2 answers with a GOAWAY: the connection is of no further use.
    static func isProtocolError(_ error: any Error) -> Bool {
        switch error {
        case is NIOHTTP2Errors.UnableToParseFrame, is NIOHTTP2Errors.BadClientMagic,
            is NIOHTTP2Errors.MissingPreface, is NIOHTTP2Errors.ExcessiveOutboundFrameBuffering:
            true
        default:
            false
        }
    }
}

/// TLS with ALPN: `h2` gets ``WideWindowHTTP2``, anything else HTTP/1.1. `prepare` runs first
/// on every accepted connection (the gateway puts its connection guard there) and returns what
/// to call, on the connection's event loop, once a protocol was chosen (true: HTTP/2).
public struct ALPNTLSChannel<HTTP1Connections: ServerChildChannel>: ServerChildChannel {
    public typealias Negotiated = WideWindowHTTP2<HTTP1Connections>.Negotiated
    public typealias Prepare = @Sendable (any Channel) throws -> @Sendable (_ http2: Bool) -> Void

    public struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<Negotiated>
        public let channel: any Channel
    }

    let context: NIOSSLContext
    let http2: WideWindowHTTP2<HTTP1Connections>
    let prepare: Prepare

    public init(
        context: NIOSSLContext, http2: WideWindowHTTP2<HTTP1Connections>, prepare: @escaping Prepare = { _ in { _ in } }
    ) {
        self.context = context
        self.http2 = http2
        self.prepare = prepare
    }

    public func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let chosen = try prepare(channel)
            let negotiation = NIOTypedApplicationProtocolNegotiationHandler<Negotiated> { result in
                chosen(result == .negotiated("h2"))
                return http2.negotiated(result, channel: channel, logger: logger)
            }
            try channel.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: context))
            try channel.pipeline.syncOperations.addHandler(negotiation)
            return Value(negotiated: negotiation.protocolNegotiationResult, channel: channel)
        }
    }

    public func handle(value: Value, logger: Logger) async {
        await http2.handle(negotiated: value.negotiated, logger: logger)
    }

    /// The server builder for ``Application``: `tls` gets ALPN `h2` and `http/1.1`.
    public static func builder(
        tls: TLSConfiguration,
        http2: @escaping @Sendable (@escaping HTTPChannelHandler.Responder) -> WideWindowHTTP2<HTTP1Connections>,
        prepare: @escaping Prepare = { _ in { _ in } }
    ) throws -> HTTPServerBuilder {
        var tls = tls
        tls.applicationProtocols = ["h2", "http/1.1"]
        let context = try NIOSSLContext(configuration: tls)
        return HTTPServerBuilder { responder in
            ALPNTLSChannel(context: context, http2: http2(responder), prepare: prepare)
        }
    }
}
