import NIOCore
import NIOHTTP2

/// Holds the flushes an HTTP/2 connection's streams ask for until the event loop has run the
/// work already queued on it, then flushes once.
///
/// AsyncHTTPClient flushes each request's stream three times (head, body, end), and a fan-out
/// starts its pushes as separate tasks on the connection's loop: without this, every one of
/// those flushes is its own pass through HTTP/2's frame buffer, its own TLS record and its own
/// `write`. With it, the frames of everything started in one turn of the loop leave together.
/// Sits between `NIOHTTP2Handler` and the stream multiplexer; frames pass through untouched.
final class FlushCoalescer: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private var flushPending = false

    func flush(context: ChannelHandlerContext) {
        guard !flushPending else { return }
        flushPending = true
        context.eventLoop.assumeIsolated().execute {
            self.flushPending = false
            context.flush()
        }
    }

    /// Puts a coalescer into an HTTP/2 connection AsyncHTTPClient made, behind its HTTP/2 handler
    /// (the client's `http2ConnectionDebugInitializer`, its one hook into the connection's
    /// pipeline).
    @Sendable static func install(on channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.submit {
            let pipeline = channel.pipeline.syncOperations
            let http2 = try pipeline.handler(type: NIOHTTP2Handler.self)
            try pipeline.addHandler(FlushCoalescer(), position: .after(http2))
        }
    }
}
