import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// One forwarded request on its own HTTP/2 stream to a service: the request goes out through
/// ``write(_:)``, the answer's head arrives in ``head`` and its body streams through
/// ``body`` with back-pressure (a slow client stops the reads, so HTTP/2 flow control holds the
/// service back instead of the gateway buffering).
///
/// Whatever goes wrong (a reset, a malformed answer, a timeout, a client that went away) closes
/// this stream only; the connection's other streams carry on.
final class UpstreamExchange: ChannelDuplexHandler, @unchecked Sendable {
    typealias InboundIn = HTTPResponsePart
    typealias OutboundIn = HTTPRequestPart
    typealias OutboundOut = HTTPRequestPart

    typealias Producer = NIOThrowingAsyncSequenceProducer<
        ByteBuffer, any Error, NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark, Delegate
    >

    /// The answer's body, read as the client takes it.
    let body: Producer
    /// Completes with the answer's status and headers.
    var head: EventLoopFuture<HTTPResponse> { headPromise.futureResult }
    /// The informational answers (`103`, `104`) that came before it, ending with it; only on a
    /// connection of its own (a resumable upload's), so no other request pays for the stream.
    let informational: AsyncStream<HTTPResponse>?
    let channel: any Channel

    // Touched on the stream's event loop only (`@unchecked Sendable` above).
    private let headPromise: EventLoopPromise<HTTPResponse>
    private let informationalSource: AsyncStream<HTTPResponse>.Continuation?
    private var source: Producer.Source?
    private var context: ChannelHandlerContext?
    private var producing = true
    private var pendingRead = false
    /// The answer arrived in full: closing the stream now would reset it needlessly.
    private var complete = false
    /// The channel is this exchange's own HTTP/1.1 connection, closed once the answer is in.
    private let ownsConnection: Bool

    init(channel: any Channel, ownsConnection: Bool = false) {
        self.channel = channel
        self.ownsConnection = ownsConnection
        self.headPromise = channel.eventLoop.makePromise()
        if ownsConnection {
            (self.informational, self.informationalSource) = AsyncStream.makeStream(
                bufferingPolicy: .bufferingNewest(8))
        } else {
            (self.informational, self.informationalSource) = (nil, nil)
        }
        let delegate = Delegate(channel: channel)
        let sequence = Producer.makeSequence(
            elementType: ByteBuffer.self, failureType: (any Error).self,
            backPressureStrategy: .init(lowWatermark: 2, highWatermark: 8), finishOnDeinit: false,
            delegate: delegate)
        self.body = sequence.sequence
        self.source = sequence.source
        delegate.exchange = self
    }

    // MARK: Writing the request

    /// Writes the request's head, and its end too when it has no body, flushed in the same
    /// event-loop turn.
    ///
    /// HTTP/2 gives a stream its id at its first write, and a stream whose HEADERS leave after
    /// a higher-numbered stream's is closed by the protocol (RFC 9113 §5.1.1): NIO then resets
    /// it with `CANCEL`. A write and a later flush from this task could let another request's
    /// stream slip between them, so both happen in one turn of the loop.
    func send(head: HTTPRequest, end: Bool) async throws {
        let channel = channel
        let written = channel.eventLoop.makePromise(of: Void.self)
        channel.eventLoop.execute {
            if end {
                channel.write(HTTPRequestPart.head(head), promise: nil)
                channel.writeAndFlush(HTTPRequestPart.end(nil), promise: written)
            } else {
                channel.writeAndFlush(HTTPRequestPart.head(head), promise: written)
            }
        }
        try await written.futureResult.get()
    }

    /// Writes one part of the request; completes once the stream took it (flow control
    /// included), which paces the request body to what the service reads.
    func write(_ part: HTTPRequestPart) async throws {
        try await channel.writeAndFlush(part).get()
    }

    /// Fails the answer and resets the stream: a timeout, or the request body broke off.
    func cancel(_ error: any Error) {
        channel.eventLoop.execute { self.fail(error) }
    }

    // MARK: Channel events

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    // The context holds this handler: keeping it after removal would keep both forever.
    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let response):
            if response.status.kind == .informational {
                // 100 Continue is this hop's own business; early hints and upload resumption go on.
                if response.status.code >= 103 { informationalSource?.yield(response) }
                return
            }
            informationalSource?.finish()
            headPromise.succeed(response)
        case .body(let buffer):
            // Out of the TLS read buffer before it waits in the queue, for the reason
            // ``BodyChunkCopier`` gives: a 150 KB answer cost the gateway 3–5 ms of CPU under
            // h2load without the copy, under 1 ms with it.
            if source?.yield(context.channel.allocator.buffer(buffer: buffer)) == .stopProducing { producing = false }
        case .end:
            complete = true
            source?.finish()
            source = nil
            // A stream that ended both ways is closed by HTTP/2 itself; a connection of its own
            // is closed here.
            if ownsConnection { context.close(promise: nil) }
        }
    }

    func read(context: ChannelHandlerContext) {
        if producing {
            context.read()
        } else {
            pendingRead = true
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        fail(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        fail(UpstreamError.streamClosed)
        context.fireChannelInactive()
    }

    private func fail(_ error: any Error) {
        informationalSource?.finish()
        headPromise.fail(error)
        if let source {
            source.finish(error)
            self.source = nil
        }
        context?.close(promise: nil)
    }

    /// The client stopped reading before the answer's end: the stream is reset, which tells
    /// the service to stop. After the end there is nothing to reset: HTTP/2 has closed the
    /// stream, or is about to, and a `RST_STREAM` for every finished request would look like
    /// a rapid-reset attack to the service (NIO answers that with `GOAWAY`, ending every
    /// request on the connection).
    fileprivate func abandon() {
        if !complete { context?.close(promise: nil) }
    }

    fileprivate func resume() {
        producing = true
        if pendingRead, let context {
            pendingRead = false
            context.read()
        }
    }

    /// Hears from the body's consumer: more wanted, or gone. It holds the exchange weakly
    /// (the exchange holds the body, which holds this delegate) and touches it on the stream's
    /// event loop only.
    final class Delegate: NIOAsyncSequenceProducerDelegate, @unchecked Sendable {
        let channel: any Channel
        // Set once, on the event loop, right after init, before any reader exists.
        weak var exchange: UpstreamExchange?

        init(channel: any Channel) {
            self.channel = channel
        }

        func produceMore() {
            channel.eventLoop.execute { self.exchange?.resume() }
        }

        /// The body's reader is done: it read to the end, went away, or dropped the answer.
        func didTerminate() {
            channel.eventLoop.execute { self.exchange?.abandon() }
        }
    }
}

/// How an upstream stream can fail besides NIO's own errors.
enum UpstreamError: Error {
    /// The stream closed before the answer was complete.
    case streamClosed
    /// No answer within the route's timeout.
    case timedOut
    /// No connection to the service could be made.
    case unreachable
}
