import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOSSL
import ServiceHTTP

/// The gateway's public listener: the kit's ``WideWindowHTTP2`` (HTTP/2 with upload-sized
/// windows, opened for a stream only once its body is read; HTTP/1.1 beside it, with WebSocket
/// upgrades for ``LiveStreamGate``) with the public limits, a ``ConnectionGuard`` first on
/// every connection and an ``HTTP1Guard`` behind the HTTP/1.1 parser. With a certificate, TLS with ALPN; without, ``PlaintextHTTPChannel``.
enum PublicListener {
    typealias HTTP2 = WideWindowHTTP2<PublicHTTP1Channel>

    static func builder(
        tls: TLSConfiguration?, limits: PublicLimits, gate: LiveStreamGate, relay: RelayRules?
    ) throws -> HTTPServerBuilder {
        guard let tls else { return PlaintextHTTPChannel.builder(limits: limits, gate: gate, relay: relay) }
        return try ALPNTLSChannel.builder(
            tls: tls, http2: { http2(responder: $0, limits: limits, gate: gate, relay: relay) },
            prepare: { try guardConnection($0, limits: limits) })
    }

    /// HTTP/2 and HTTP/1.1 with the public limits. The parsers' header cap is a hard limit
    /// well above `limits.headerBytes`, which the router enforces with a proper 431 for both
    /// protocols. With `relay`, each HTTP/2 stream gets a ``StreamRelay`` ahead of the router,
    /// and each HTTP/2 connection a ``FrameRelay`` ahead of its streams (`upstream.relayFrames`).
    static func http2(
        responder: @escaping HTTPChannelHandler.Responder, limits: PublicLimits, gate: LiveStreamGate,
        relay: RelayRules?
    ) -> HTTP2 {
        let headTimeout = limits.idleTimeout
        let configuration = HTTP1Channel.Configuration(
            additionalChannelHandlers: [HTTP1Guard(headTimeout: headTimeout), BodyChunkCopier()], idleTimeout: nil,
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: limits.headerCap, maxHeaderListSize: limits.headerCap, maxHeaderFieldCount: 500))
        let webSocket = WebSocketServerConfiguration(
            maxFrameSize: 1 << 16, autoPing: .enabled(timePeriod: limits.webSocketPing))
        let connections = PublicHTTP1Channel(
            upgrade: HTTP1WebSocketUpgradeChannel(
                responder: responder, configuration: .init(http1: configuration, ws: webSocket),
                shouldUpgrade: gate.shouldUpgrade),
            headTimeout: headTimeout)
        return WideWindowHTTP2(
            http1: HTTP1Channel(responder: responder, configuration: configuration), connections: connections,
            maxConcurrentStreams: 100,
            maxHeaderListSize: limits.headerCap, idleTimeout: limits.idleTimeout, grace: limits.grace,
            misbehaviour: {
                [counter = limits.counter, penalty = limits.floodPenalty, trusted = limits.connection.trusted]
                channel, error in
                // A proxy's flooding connection is closed, but the proxy's other clients go on.
                guard let address = channel.remoteAddress?.ipAddress, !trusted.contains(address) else { return }
                counter.refuse(address, for: penalty)
                Logger(label: "gateway").notice(
                    "HTTP/2 flood: connections from \(address) refused for \(penalty)",
                    metadata: ["error": "\(error)"])
            },
            prepareStream: relay.map(relayStreams),
            prepareConnection: relay.flatMap { $0.settings.relayFrames ? relayFrames($0) : nil },
            windowsOnDemand: true)
    }

    /// Puts a ``FrameRelay`` between each HTTP/2 connection's NIOHTTP2 handler and its streams.
    static func relayFrames(_ rules: RelayRules) -> HTTP2.PrepareConnection {
        { @Sendable operations in try operations.addHandler(FrameRelay(rules: rules)) }
    }

    /// Puts a ``StreamRelay`` in each new HTTP/2 stream's pipeline.
    static func relayStreams(_ rules: RelayRules) -> HTTP2.PrepareStream {
        { @Sendable (operations: ChannelPipeline.SynchronousOperations, handOver: @escaping HTTP2.HandOver) throws in
            let relay = StreamRelay(rules: rules, handOver: handOver)
            try operations.addHandler(relay)
        }
    }

    /// Puts a ``ConnectionGuard`` first in a new connection's pipeline; returns what tells it
    /// the protocol chosen (true: HTTP/2).
    static func guardConnection(_ channel: any Channel, limits: PublicLimits) throws -> @Sendable (Bool) -> Void {
        let connectionGuard = ConnectionGuard(limits: limits.connection, counter: limits.counter)
        try channel.pipeline.syncOperations.addHandler(connectionGuard, position: .first)
        let bound = NIOLoopBound(connectionGuard, eventLoop: channel.eventLoop)
        return { http2 in bound.value.negotiated(http2 ? .http2 : .http1) }
    }
}
