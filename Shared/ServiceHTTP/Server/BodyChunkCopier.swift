import NIOCore
import NIOHTTPTypes

/// Gives each request body chunk a buffer of its own as it leaves the parser.
///
/// A chunk is a slice of the parser's buffer, which is itself the TLS handler's read buffer.
/// Both are written again on the next read, and while the slice waits in the request body's
/// queue (or in an upload's write batch) that write must first copy the whole buffer into a
/// fresh allocation the size of a read: new pages, page faults and zeroing for every read of
/// an upload. A chunk's own copy (16 KiB for an HTTP/2 frame, a read at most for HTTP/1.1)
/// lets both buffers be reused in place. Sits behind HTTP/1.1's codec and each HTTP/2 stream's.
public final class BodyChunkCopier: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTPRequestPart
    public typealias InboundOut = HTTPRequestPart

    public init() {}

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard case .body(let chunk) = unwrapInboundIn(data) else { return context.fireChannelRead(data) }
        context.fireChannelRead(wrapInboundOut(.body(context.channel.allocator.buffer(buffer: chunk))))
    }
}
