import NIOCore
import NIOHTTP2

/// Holds the flushes an HTTP/2 connection's streams ask for until the event loop has run the
/// work already queued on it, then flushes once; writes pass through untouched.
///
/// Each stream flushes its own frames, and every flush that reaches TLS is its own pass through
/// its buffers, its own records and its own `write`. Where many streams of one connection write
/// at once, that is most of the connection's cost: a push fan-out (AsyncHTTPClient flushes each
/// request three times: head, body, end) and alerts' live streams (a notification is one frame
/// on each of its user's streams, all on the gateway's connection; a fifth of alerts' samples
/// were those flushes, a tenth with this). With this, what the streams wrote in one turn of
/// the loop leaves in one flush, unless more than `byteLimit` bytes are held (then it goes at
/// once). The delay is that turn's remaining work, not a timer.
public final class FlushCoalescer<Written>: ChannelOutboundHandler, RemovableChannelHandler {
    public typealias OutboundIn = Written
    public typealias OutboundOut = Written

    /// How many bytes may be held unflushed before a flush goes at once, and how a write's bytes
    /// are counted; without one, every flush waits for the turn's end (and no write is unwrapped).
    private let limit: (bytes: Int, size: (Written) -> Int)?
    private var held = 0
    private var flushPending = false

    /// Holds every flush until the turn ends.
    public init() {
        limit = nil
    }

    /// Holds flushes while fewer than `byteLimit` bytes (as `size` counts them) were written since
    /// the last.
    public init(byteLimit: Int, size: @escaping (Written) -> Int) {
        limit = (byteLimit, size)
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if let limit { held += limit.size(unwrapOutboundIn(data)) }
        context.write(data, promise: promise)
    }

    public func flush(context: ChannelHandlerContext) {
        if let limit, held >= limit.bytes {
            held = 0
            context.flush()
            return
        }
        guard !flushPending else { return }
        flushPending = true
        context.eventLoop.assumeIsolated().execute {
            self.flushPending = false
            self.held = 0
            context.flush()
        }
    }

    /// A held flush goes before the close (a GOAWAY written just before closing a misbehaving
    /// connection would be lost otherwise).
    public func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if flushPending {
            held = 0
            context.flush()
        }
        context.close(mode: mode, promise: promise)
    }
}

extension FlushCoalescer where Written == IOData {
    /// Bytes below an HTTP/2 handler: a flush of more than this much goes at once. Half the
    /// socket channel's default high-water mark (64 KiB): a bigger burst turns the connection
    /// unwritable and back, and NIO tells each of the connection's streams both times (with
    /// 10,000 live streams on the gateway's connection, a quarter of alerts' samples).
    static let byteLimit = 32 * 1024

    /// Puts a coalescer into a connection set up by `configureHTTP2Pipeline` or
    /// `configureAsyncHTTP2Pipeline`, just below its HTTP/2 handler: there the streams' frames
    /// are written straight into the handler (NIO's inline multiplexer), and what this holds is
    /// the handler's flush to TLS (the gateway's connections to the services have one too: the
    /// relay flushes each request's stream as it goes).
    public static func installBelowHTTP2(in pipeline: ChannelPipeline.SynchronousOperations) throws {
        let http2 = try pipeline.handler(type: NIOHTTP2Handler.self)
        let coalescer = FlushCoalescer(byteLimit: byteLimit) { $0.readableBytes }
        try pipeline.addHandler(coalescer, position: .before(http2))
    }
}

extension FlushCoalescer where Written == HTTP2Frame {
    /// Puts a coalescer into an HTTP/2 connection AsyncHTTPClient made, between its HTTP/2 handler
    /// and its stream multiplexer (the client's `http2ConnectionDebugInitializer`, its one hook
    /// into the connection's pipeline): there it holds the streams' flushes themselves, each
    /// turn's (a push is a few hundred bytes; the handler writes to TLS what it holds).
    @Sendable public static func installAboveHTTP2(on channel: any Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.submit {
            let pipeline = channel.pipeline.syncOperations
            let http2 = try pipeline.handler(type: NIOHTTP2Handler.self)
            try pipeline.addHandler(FlushCoalescer(), position: .after(http2))
        }
    }
}
