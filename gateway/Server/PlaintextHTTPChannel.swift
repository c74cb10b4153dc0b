import HummingbirdCore
import Logging
import NIOCore
import NIOTLS
import ServiceHTTP

/// HTTP/1.1 and prior-knowledge HTTP/2 (h2c) on one plaintext port, for local use without a
/// certificate: `curl http://…` and `curl --http2-prior-knowledge http://…` both work.
///
/// The first bytes decide: a connection that opens with the HTTP/2 client preface gets the
/// HTTP/2 pipeline, anything else HTTP/1.1. The decision reuses NIO's typed protocol
/// negotiation (the same machinery ALPN uses under TLS), fed by a small sniffer.
struct PlaintextHTTPChannel: ServerChildChannel {
    typealias Negotiated = PublicListener.HTTP2.Negotiated

    struct Value: ServerChildChannelValue {
        let negotiated: EventLoopFuture<Negotiated>
        let channel: any Channel
    }

    let http2: PublicListener.HTTP2
    let limits: PublicLimits

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let chosen = try PublicListener.guardConnection(channel, limits: limits)
            let negotiation = NIOTypedApplicationProtocolNegotiationHandler<Negotiated> { result in
                chosen(result == .negotiated("h2"))
                return http2.negotiated(result, channel: channel, logger: logger)
            }
            try channel.pipeline.syncOperations.addHandler(HTTP2PrefaceSniffer())
            try channel.pipeline.syncOperations.addHandler(negotiation)
            return Value(negotiated: negotiation.protocolNegotiationResult, channel: channel)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http2.handle(negotiated: value.negotiated, logger: logger)
    }

    /// The server builder for ``Application``.
    static func builder(limits: PublicLimits, gate: LiveStreamGate, relay: RelayRules?) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            PlaintextHTTPChannel(
                http2: PublicListener.http2(responder: responder, limits: limits, gate: gate, relay: relay),
                limits: limits)
        }
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
