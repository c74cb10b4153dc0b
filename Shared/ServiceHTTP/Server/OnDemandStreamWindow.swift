import NIOCore
import NIOHTTP2

/// Asks an HTTP/2 stream's ``OnDemandStreamWindow`` for the stream's full window: sent as a
/// user outbound event (`triggerUserOutboundEvent`) by whatever is about to read the
/// request's body. Anywhere else it does nothing.
public struct WidenStreamWindow: Sendable {
    public init() {}
}

/// The flow-control window of one HTTP/2 stream of a listener that opens windows on demand
/// (``WideWindowHTTP2``'s `windowsOnDemand`, the gateway's public side): the stream begins
/// with ``HTTP2Windows/waiting`` (the protocol's default, kept topped up by NIOHTTP2 as the
/// stream's pipeline reads), and gets ``HTTP2Windows/stream`` only once told with
/// ``WidenStreamWindow`` that its body is being read; from then on what its pipeline reads is
/// given back in window updates of half that size.
///
/// A request waiting for its connection's turn can so make the listener hold no more than the
/// small window of its body (where every stream began with the large one, one client with 100
/// such streams made the gateway hold 100 MiB a connection); a body being read, an upload's,
/// flows with the large one.
///
/// The client may have ended its body before this has seen the end (it is still in the
/// stream's buffer, unread): NIOHTTP2 then refuses the update, as a stream may not be given
/// window once its peer has finished sending, and reports a stream error to the stream. That
/// error is this handler's own and harmless (nothing more is coming), and goes no further: the
/// request's reader would take it for a broken body.
final class OnDemandStreamWindow: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame.FramePayload
    typealias InboundOut = HTTP2Frame.FramePayload
    typealias OutboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private let window: Int
    private var widened = false
    /// Whether the request's last frame has passed: its window is over.
    private var ended = false
    /// Body bytes read since the last window update.
    private var readSinceUpdate = 0
    /// Whether NIOHTTP2 refused an update of this handler's (its stream error is then expected).
    private var refused = false

    init(window: Int = HTTP2Windows.stream) {
        self.window = window
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .data(let frame):
            if frame.endStream {
                ended = true
            } else if widened {
                readSinceUpdate += frame.data.readableBytes + (frame.paddingBytes.map { $0 + 1 } ?? 0)
                if readSinceUpdate >= window / 2 {
                    open(by: readSinceUpdate, context: context)
                    readSinceUpdate = 0
                }
            }
        case .headers(let headers):
            if headers.endStream { ended = true }
        default:
            break
        }
        context.fireChannelRead(data)
    }

    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard event is WidenStreamWindow else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        promise?.succeed()
        guard !widened, !ended else { return }
        widened = true
        open(by: window, context: context)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if refused, error is NIOHTTP2Errors.BadStreamStateTransition {
            refused = false
            return
        }
        context.fireErrorCaught(error)
    }

    private func open(by increment: Int, context: ChannelHandlerContext) {
        let written = context.eventLoop.makePromise(of: Void.self)
        // NIOHTTP2 fails the write before it reports the stream error (both on this loop).
        written.futureResult.assumeIsolated().whenFailure { [self] error in
            guard error is NIOHTTP2Errors.BadStreamStateTransition else { return }
            refused = true
            ended = true
        }
        context.writeAndFlush(wrapOutboundOut(.windowUpdate(windowSizeIncrement: increment)), promise: written)
    }
}
