import Contracts
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import ServiceHTTP

/// Sits behind the HTTP/1.1 parser of a public connection and keeps it honest:
/// - a request's head must arrive within `headTimeout` of the connection opening or of the
///   previous answer ending; a client that trickles its headers (slowloris) or sits idle
///   between requests is closed then;
/// - a request the parser cannot read gets the JSON error envelope (431
///   `HEADERS_TOO_LARGE` for oversized headers, 400 `MALFORMED_REQUEST` otherwise) with a
///   request id of its own, and the connection is closed, instead of a bare 400. A parse error in the middle of a body is
///   passed on to whoever reads the body (the gateway answers it) and the connection is
///   closed once that answer is out.
final class HTTP1Guard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let headTimeout: TimeAmount
    private var deadline: Scheduled<Void>?
    /// A request's head arrived and its answer has not ended yet.
    private var inRequest = false
    /// The connection closes once the current answer is out; nothing more is written.
    private var closeAfterAnswer = false
    private var closed = false

    init(headTimeout: TimeAmount) {
        self.headTimeout = headTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        armDeadline(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closeAfterAnswer else { return }
        if case .head = unwrapInboundIn(data) {
            inRequest = true
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard !closed else {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        let part = unwrapOutboundIn(data)
        context.write(data, promise: promise)
        if case .end = part {
            inRequest = false
            if closeAfterAnswer {
                closed = true
                context.flush()
                Self.lingeringClose(context: context)
            } else {
                armDeadline(context: context)
            }
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        closeAfterAnswer = true
        if inRequest {
            // The body's reader hears the error and answers; the connection closes after.
            context.fireErrorCaught(error)
            return
        }
        let refused = Self.refusalAnswer(parseError)
        closed = true
        var headers: HTTPFields = [
            .contentType: "application/json; charset=utf-8", .connection: "close", .requestID: refused.requestID,
        ]
        let body = refused.body
        headers[.contentLength] = String(body.readableBytes)
        context.write(wrapOutboundOut(.head(HTTPResponse(status: refused.status, headerFields: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(body)), promise: nil)
        context.write(wrapOutboundOut(.end(nil)), promise: nil)
        context.flush()
        Self.lingeringClose(context: context)
    }

    /// The answer to a request the parser could not read: its status, a request id of its own
    /// (no request was read to carry one; every answer names one, in the body and the
    /// `x-request-id` header) and the JSON error envelope.
    static func refusalAnswer(
        _ parseError: HTTPParserError
    ) -> (status: HTTPResponse.Status, requestID: String, body: ByteBuffer) {
        let failure =
            parseError == .headerOverflow
            ? ServiceError(.headersTooLarge, "The request's headers are larger than this server accepts.")
            : ServiceError(.malformedRequest, "The request could not be parsed as HTTP/1.1.")
        let requestID = SystemEntropy().token(bytes: 12)
        return (failure.status, requestID, failure.envelope(requestID: requestID))
    }

    /// Ends the answer with a FIN and reads (discarding) for a moment before closing: a client
    /// still sending the rest of a refused request would otherwise get a reset that makes its
    /// system drop the answer before the client reads it.
    static func lingeringClose(context: ChannelHandlerContext) {
        context.close(mode: .output, promise: nil)
        let channel = context.channel
        context.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
    }

    private func armDeadline(context: ChannelHandlerContext) {
        deadline?.cancel()
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: headTimeout) { channel.close(promise: nil) }
    }
}
