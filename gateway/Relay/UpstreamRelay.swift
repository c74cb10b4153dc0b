import Contracts
import HTTPTypes
import NIOCore
import NIOHTTP2
import NIOHTTPTypes

/// The service's side of a relayed request, on the same event loop as the client's stream: the
/// last handler of a stream on the service's HTTP/2 connection, or of a kept-alive HTTP/1.1
/// connection for the time of one exchange (``KeptAliveLanes``). It writes what
/// ``StreamRelay`` sends (on a stream, held until the stream is made and active, on the loop's
/// next turn) and hands the answer to it as it arrives; while the client cannot take more, it
/// stops reading, so flow control (HTTP/2's, or TCP's) holds the service back.
final class UpstreamRelay: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPResponsePart
    typealias OutboundIn = HTTPRequestPart
    typealias OutboundOut = HTTPRequestPart

    private weak var owner: (any RelayDownstream)?
    private var context: ChannelHandlerContext?
    /// The answer arrived in full: HTTP/2 closes the stream itself, and a reset now would
    /// count towards the service's rapid-reset limit.
    private var complete = false
    private var reading = true
    private var pendingRead = false
    /// What was sent before the stream was active, and whether a flush was asked for.
    private var held: [HTTPRequestPart] = []
    private var flushHeld = false
    private var active = false
    private var abandoned = false
    /// On a kept-alive connection: the lane it goes back to once the exchange is over.
    private var lane: (lanes: KeptAliveLanes, service: ServiceName)?
    /// The request's end was sent (a kept-alive connection left mid-request is not reused).
    private var requestSent = false

    init(owner: any RelayDownstream) {
        self.owner = owner
    }

    /// Takes the kept-alive connection `channel` (on this loop, idle) for this exchange.
    func attach(to channel: any Channel, lanes: KeptAliveLanes, service: ServiceName) {
        lane = (lanes, service)
        do {
            try channel.pipeline.syncOperations.addHandler(self)
        } catch {
            lane = nil
            channel.close(promise: nil)
            streamFailed()
        }
    }

    func send(_ part: HTTPRequestPart) {
        if case .end = part { requestSent = true }
        if active, let context {
            context.write(wrapOutboundOut(part), promise: nil)
        } else {
            held.append(part)
        }
    }

    func flush() {
        if active, let context {
            context.flush()
        } else {
            flushHeld = true
        }
    }

    /// Resets the stream unless its answer is complete: the client went away, or the answer
    /// is no longer wanted.
    func abandon() {
        owner = nil
        held = []
        // Once the answer is complete there is nothing to stop (the client's stream ends
        // as the answer's end is written, and tells so at once).
        guard !complete else { return }
        abandoned = true
        context?.close(promise: nil)
    }

    /// Resets the stream even though its answer is complete: the request's own end will never
    /// be sent (its body was cut off).
    func reset() {
        owner = nil
        abandoned = true
        context?.close(promise: nil)
    }

    /// The stream could not be made (the connection closed meanwhile).
    func streamFailed() {
        owner?.upstreamFailed(cause: "the connection to the service closed before a stream could be opened")
        owner = nil
    }

    func pauseReading() {
        reading = false
    }

    func resumeReading() {
        reading = true
        if pendingRead, let context {
            pendingRead = false
            context.read()
        }
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        // A kept-alive connection is open already; a stream becomes active once made.
        if lane != nil { active = true }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        active = true
        context.fireChannelActive()
        guard !abandoned else {
            context.close(promise: nil)
            return
        }
        for part in held { context.write(wrapOutboundOut(part), promise: nil) }
        held = []
        if flushHeld {
            flushHeld = false
            context.flush()
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let response): owner?.upstreamHead(response)
        case .body(let buffer): owner?.upstreamBody(buffer)
        case .end:
            complete = true
            owner?.upstreamEnd()
            if lane != nil { release(context) }
        }
    }

    /// The exchange on a kept-alive connection is over: the connection goes back to its lane,
    /// reading as it did before, unless the request was not sent in full or it is closing.
    private func release(_ context: ChannelHandlerContext) {
        guard let (lanes, service) = lane else { return }
        lane = nil
        owner = nil
        guard requestSent, !abandoned, context.channel.isActive else {
            context.close(promise: nil)
            return
        }
        reading = true
        if pendingRead {
            pendingRead = false
            context.read()
        }
        let channel = context.channel
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        lanes.giveBack(channel, to: service)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        owner?.upstreamReadComplete()
    }

    func read(context: ChannelHandlerContext) {
        if reading {
            context.read()
        } else {
            pendingRead = true
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset or a malformed answer: this stream only.
        owner?.upstreamFailed(cause: String(describing: error))
        owner = nil
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !complete {
            owner?.upstreamFailed(cause: "the service closed the connection before its answer was complete")
        }
        owner = nil
        context.fireChannelInactive()
    }
}

/// The client's side of a relayed request, told by ``UpstreamRelay`` of the service's answer
/// as it arrives: a client's HTTP/2 stream (``StreamRelay``) or a stream the connection's
/// ``FrameRelay`` answers itself (``FrameStream``).
protocol RelayDownstream: AnyObject {
    func upstreamHead(_ response: HTTPResponse)
    func upstreamBody(_ buffer: ByteBuffer)
    func upstreamEnd()
    func upstreamReadComplete()
    /// The service's side failed: before the answer began, or in its middle; `cause` says how,
    /// for the log.
    func upstreamFailed(cause: String)
}

/// Sends a request without a body as one HEADERS frame with END_STREAM: NIO's HTTP types codec
/// ends every request with an empty DATA frame of its own, one more frame for the service to
/// read and the gateway to write. A head is held until the stream's next write or flush.
final class RequestEndCoalescer: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTP2Frame.FramePayload
    typealias OutboundOut = HTTP2Frame.FramePayload

    private var held: (headers: HTTP2Frame.FramePayload.Headers, promise: EventLoopPromise<Void>?)?

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let payload = unwrapOutboundIn(data)
        if let (headers, earlier) = held {
            held = nil
            if case .data(let data) = payload, data.endStream, data.data.readableBytes == 0, data.paddingBytes == nil {
                var ending = headers
                ending.endStream = true
                if let earlier, let promise { earlier.futureResult.cascade(to: promise) }
                context.write(wrapOutboundOut(.headers(ending)), promise: earlier ?? promise)
                return
            }
            context.write(wrapOutboundOut(.headers(headers)), promise: earlier)
        } else if case .headers(let headers) = payload, !headers.endStream {
            held = (headers, promise)
            return
        }
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        if let (headers, promise) = held {
            held = nil
            context.write(wrapOutboundOut(.headers(headers)), promise: promise)
        }
        context.flush()
    }
}
