import NIOCore
import NIOHTTP2
import NIOHTTPTypesHTTP2
import NIOPosix
import NIOSSL
import ServiceHTTP
import Synchronization

/// One HTTP/2 connection over mutual TLS to a service, multiplexing the gateway's requests as
/// streams. It counts its open streams (so the pool can spread load), and it stops taking new
/// ones once the service said GOAWAY, the connection closed, or the service stopped answering
/// PINGs (``UpstreamConnectionWatcher``).
final class UpstreamConnection: Sendable {
    let channel: any Channel
    private let multiplexer: NIOHTTP2Handler.StreamMultiplexer
    private let state: Mutex<State>

    struct State {
        var openStreams = 0
        var usable = true
    }

    private init(channel: any Channel, multiplexer: NIOHTTP2Handler.StreamMultiplexer) {
        self.channel = channel
        self.multiplexer = multiplexer
        self.state = Mutex(State())
    }

    /// Whether new streams may go here, and how many are open.
    var load: (usable: Bool, open: Int) {
        state.withLock { ($0.usable && channel.isActive, $0.openStreams) }
    }

    /// Connects to `host`:`port` with `tls` (ALPN `h2`) and configures HTTP/2 with windows large
    /// enough that a stream's body never waits on a window update on loopback.
    static func connect(
        host: String, port: Int, serverName: String?, tls: NIOSSLContext, group: any EventLoopGroup,
        connectTimeout: TimeAmount
    ) async throws -> UpstreamConnection {
        let bootstrap = ClientBootstrap(group: group)
            .connectTimeout(connectTimeout)
            .channelOption(.tcpOption(.tcp_nodelay), value: 1)
        let channel = try await bootstrap.connect(host: host, port: port).get()
        do {
            let multiplexer = try await channel.eventLoop.flatSubmit {
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(context: tls, serverHostname: serverName)
                    try channel.pipeline.syncOperations.addHandler(handler)
                    var connection = NIOHTTP2Handler.ConnectionConfiguration()
                    connection.initialSettings = [
                        HTTP2Setting(parameter: .maxConcurrentStreams, value: 100),
                        HTTP2Setting(parameter: .initialWindowSize, value: HTTP2Windows.stream),
                        HTTP2Setting(parameter: .maxHeaderListSize, value: 1 << 16),
                    ]
                    connection.targetWindowSize = HTTP2Windows.connection
                    // Both ends are Pinhole's: what goes out was checked when the client sent it
                    // (the public listener validates every header block), what comes back is a
                    // service's. Checking every byte of every value again was 2 % of the relay's CPU.
                    connection.headerBlockValidation = .disabled
                    var stream = NIOHTTP2Handler.StreamConfiguration()
                    stream.targetWindowSize = HTTP2Windows.stream
                    let watcher = UpstreamConnectionWatcher()
                    try channel.pipeline.syncOperations.addHandler(
                        IdleStateHandler(readTimeout: UpstreamConnectionWatcher.interval))
                    let multiplexer = try channel.pipeline.syncOperations.configureHTTP2Pipeline(
                        mode: .client, connectionConfiguration: connection, streamConfiguration: stream,
                        inboundStreamInitializer: { channel in channel.close() })
                    try channel.pipeline.syncOperations.addHandler(watcher)
                    try FlushCoalescer.installBelowHTTP2(in: channel.pipeline.syncOperations)
                    return (multiplexer, watcher)
                }
            }.get()
            let connection = UpstreamConnection(channel: channel, multiplexer: multiplexer.0)
            let watcher = multiplexer.1
            try await channel.eventLoop.submit {
                watcher.connection = NIOLoopBound(connection, eventLoop: channel.eventLoop)
            }.get()
            return connection
        } catch {
            channel.close(promise: nil)
            throw error
        }
    }

    /// Opens a stream for one request. The stream counts as open from here until its channel
    /// closes, so the pool sees load before the first frame is written.
    func openStream() async throws -> UpstreamExchange {
        state.withLock { $0.openStreams += 1 }
        let exchange: UpstreamExchange
        do {
            exchange = try await multiplexer.createStreamChannel { stream in
                stream.eventLoop.makeCompletedFuture {
                    try stream.pipeline.syncOperations.addHandler(HTTP2FramePayloadToHTTPClientCodec())
                    try stream.pipeline.syncOperations.addHandler(UpstreamExchange(channel: stream))
                }
            }.flatMap { stream in
                stream.pipeline.handler(type: UpstreamExchange.self)
            }.get()
        } catch {
            streamClosed()
            throw error
        }
        exchange.channel.closeFuture.whenComplete { _ in self.streamClosed() }
        return exchange
    }

    /// Opens a stream for a request ``StreamRelay`` relays, on the connection's event loop (the
    /// relay's own): NIO makes it on the loop's next turn, with `relay` last in its pipeline
    /// (told if it could not be made). Counted as ``openStream()``'s are.
    func openRelayStream(_ relay: UpstreamRelay) {
        channel.eventLoop.preconditionInEventLoop()
        state.withLock { $0.openStreams += 1 }
        let made = channel.eventLoop.makePromise(of: (any Channel).self)
        let bound = NIOLoopBound(relay, eventLoop: channel.eventLoop)
        multiplexer.createStreamChannel(promise: made) { stream in
            stream.eventLoop.makeCompletedFuture {
                let operations = stream.pipeline.syncOperations
                try operations.addHandler(RequestEndCoalescer())
                try operations.addHandler(HTTP2FramePayloadToHTTPClientCodec())
                try operations.addHandler(bound.value)
            }
        }
        made.futureResult.whenComplete { result in
            switch result {
            case .success(let stream): stream.closeFuture.whenComplete { _ in self.streamClosed() }
            case .failure:
                self.streamClosed()
                bound.value.streamFailed()
            }
        }
    }

    private func streamClosed() {
        let drained = state.withLock { state in
            state.openStreams -= 1
            return !state.usable && state.openStreams == 0
        }
        if drained { channel.close(promise: nil) }
    }

    /// No new streams go here; the connection closes once its open streams are done (the pool
    /// has forgotten it, and nothing else would close it).
    func goingAway() {
        let drained = state.withLock { state in
            state.usable = false
            return state.openStreams == 0
        }
        if drained { channel.close(promise: nil) }
    }

    /// Closes the connection; open streams fail.
    func close() {
        goingAway()
        channel.close(promise: nil)
    }
}

/// Watches the connection for what the pool needs to know: GOAWAY (no new streams here), the
/// connection closing, and a service that no longer answers: after `interval` with nothing
/// read it sends a PING, and if nothing arrives within another `interval` it closes the
/// connection (a host that vanished without a TCP reset would otherwise keep requests waiting
/// for their timeout).
final class UpstreamConnectionWatcher: ChannelDuplexHandler, @unchecked Sendable {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    /// How long the connection may be silent before a PING, and then before it is given up.
    static let interval = TimeAmount.seconds(10)

    // Set once on the event loop right after the pipeline is built, before any stream opens.
    var connection: NIOLoopBound<UpstreamConnection>?
    private var awaitingAnswer = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        awaitingAnswer = false
        if case .goAway = unwrapInboundIn(data).payload { connection?.value.goingAway() }
        context.fireChannelRead(data)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        if awaitingAnswer {
            connection?.value.goingAway()
            context.close(promise: nil)
            return
        }
        awaitingAnswer = true
        let ping = HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: 0), ack: false))
        context.writeAndFlush(wrapOutboundOut(ping), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        connection?.value.goingAway()
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A connection-level protocol error: NIO sends GOAWAY; no new streams go here.
        connection?.value.goingAway()
        context.fireErrorCaught(error)
    }
}
