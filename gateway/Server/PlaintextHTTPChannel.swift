import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOHTTP2
import NIOTLS

/// HTTP/1.1 and prior-knowledge HTTP/2 (h2c) on one plaintext port, for local use without a
/// certificate: `curl http://…` and `curl --http2-prior-knowledge http://…` both work.
///
/// The first bytes decide: a connection that opens with the HTTP/2 client preface gets the
/// HTTP/2 pipeline, anything else HTTP/1.1. The decision reuses NIO's typed protocol
/// negotiation (the same machinery ALPN uses under TLS), fed by a small sniffer.
struct PlaintextHTTPChannel: ServerChildChannel {
    typealias Negotiated = NIONegotiatedHTTPVersion<HTTP1Channel.Value, PublicHTTP2.Connection>

    struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<Negotiated>
        let channel: any Channel
    }

    let http2: PublicHTTP2
    var http1: HTTP1Channel { http2.http1 }

    init(responder: @escaping HTTPChannelHandler.Responder, limits: PublicLimits) {
        self.http2 = PublicHTTP2(responder: responder, limits: limits)
    }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let connectionGuard = try http2.addGuard(to: channel)
            let negotiation = NIOTypedApplicationProtocolNegotiationHandler<Negotiated> { result in
                http2.negotiated(result, channel: channel, connectionGuard: connectionGuard, logger: logger)
            }
            try channel.pipeline.syncOperations.addHandler(HTTP2PrefaceSniffer())
            try channel.pipeline.syncOperations.addHandler(negotiation)
            return Value(negotiated: negotiation.protocolNegotiationResult, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        do {
            switch try await value.negotiated.get() {
            case .http1_1(let connection): await http1.handle(value: connection, logger: logger)
            case .http2(let connection): await http2.handle(connection, logger: logger)
            }
        } catch {
            logger.debug("plaintext protocol detection failed: \(error)")
        }
    }

    /// The server builder for ``Application``.
    static func builder(limits: PublicLimits) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in PlaintextHTTPChannel(responder: responder, limits: limits) }
    }
}

/// Reads until the first bytes either are the HTTP/2 client preface or cannot be, announces
/// the result as if ALPN had negotiated it, hands the bytes on and removes itself.
final class HTTP2PrefaceSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)
    private var buffered: ByteBuffer?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var incoming = unwrapInboundIn(data)
        if buffered == nil {
            buffered = incoming
        } else {
            buffered!.writeBuffer(&incoming)
        }
        let bytes = buffered!.readableBytesView
        let compared = min(bytes.count, Self.preface.count)
        let matchesSoFar = bytes.prefix(compared).elementsEqual(Self.preface.prefix(compared))
        if matchesSoFar && bytes.count < Self.preface.count { return }
        let isHTTP2 = matchesSoFar
        context.fireUserInboundEventTriggered(
            TLSUserEvent.handshakeCompleted(negotiatedProtocol: isHTTP2 ? "h2" : nil))
        let data = buffered!
        buffered = nil
        context.fireChannelRead(wrapInboundOut(data))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
