import NIOCore
import NIOHPACK
import NIOHTTP2

/// Sends a sized response's head, body and end together, with END_STREAM on its last frame.
///
/// NIO's HTTP/2 codec ends every response with a DATA frame of its own (empty, END_STREAM), and
/// Hummingbird writes and flushes a response's head, body and end one by one (its metrics
/// middleware turns every body into a stream). Each flush is a TLS record and a system call of
/// its own, and a client that has read `content-length` bytes before the end arrives (curl does)
/// resets the stream, which NIOHTTP2 counts towards its rapid-reset limit (200 in 30 s) and then
/// closes the connection. Here, once a response states its length, its HEADERS wait for the
/// first DATA frame and the frame that completes the length waits for the end, which then rides
/// on it: nothing waits for anything but the response's own next write.
final class StreamEndCoalescer: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private var held: [(payload: HTTP2Frame.FramePayload, promise: EventLoopPromise<Void>?)] = []
    /// The response's `content-length`, and the body bytes written so far.
    private var expected: Int?
    private var sent = 0

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let payload = unwrapOutboundIn(data)
        switch payload {
        case .data(let data) where data.endStream && data.data.readableBytes == 0 && data.paddingBytes == nil:
            guard let last = held.popLast() else { break }
            if let earlier = last.promise, let promise { earlier.futureResult.cascade(to: promise) }
            held.append((Self.ending(last.payload), last.promise ?? promise))
            release(context: context)
            return
        case .headers(let headers) where !headers.endStream:
            release(context: context)
            let status = headers.headers.first(name: ":status").flatMap { Int($0) } ?? 0
            guard status >= 200, let length = headers.headers.first(name: "content-length").flatMap({ Int($0) })
            else { break }
            expected = length
            sent = 0
            held.append((payload, promise))
            return
        case .data(let data) where !data.endStream:
            sent += data.data.readableBytes
            if sent == expected {
                held.append((payload, promise))
                return
            }
            if !held.isEmpty {
                // The head waited for the body's first frame; the body is longer than this one.
                held.append((payload, promise))
                release(context: context)
                return
            }
        default:
            break
        }
        release(context: context)
        context.write(data, promise: promise)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        release(context: context)
        context.flush()
        context.close(mode: mode, promise: promise)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        for (_, promise) in held { promise?.fail(ChannelError.ioOnClosedChannel) }
        held = []
    }

    private func release(context: ChannelHandlerContext) {
        guard !held.isEmpty else { return }
        let frames = held
        held = []
        for (payload, promise) in frames { context.write(wrapOutboundOut(payload), promise: promise) }
    }

    /// `payload` (HEADERS or DATA) with END_STREAM set.
    private static func ending(_ payload: HTTP2Frame.FramePayload) -> HTTP2Frame.FramePayload {
        switch payload {
        case .headers(var headers):
            headers.endStream = true
            return .headers(headers)
        case .data(var data):
            data.endStream = true
            return .data(data)
        default:
            return payload
        }
    }
}
