import HTTPTypes
import NIOCore
import NIOHTTP1
import ServiceHTTP

/// Guards an HTTP/1.1 connection's first request until its head is read, where ``HTTP1Guard``
/// cannot yet: with WebSocket upgrades possible, the HTTP/1.1 pipeline behind the parser is
/// built only once the first head says whether it asks for one.
///
/// Sits between the parser and the upgrade handler. The head must arrive within
/// `headTimeout` of the connection opening (a slowloris client is closed then); a head the
/// parser cannot read gets the JSON error envelope, as ``HTTP1Guard`` answers later ones. Once
/// the head is read it removes itself.
final class FirstRequestGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let headTimeout: TimeAmount
    private var deadline: Scheduled<Void>?
    private var answered = false

    init(headTimeout: TimeAmount) {
        self.headTimeout = headTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let channel = context.channel
        deadline = context.eventLoop.scheduleTask(in: headTimeout) { channel.close(promise: nil) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        let isHead = if case .head = unwrapInboundIn(data) { true } else { false }
        context.fireChannelRead(data)
        if isHead {
            deadline?.cancel()
            deadline = nil
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let parseError = error as? HTTPParserError, !answered else {
            context.fireErrorCaught(error)
            return
        }
        answered = true
        deadline?.cancel()
        let refused = HTTP1Guard.refusalAnswer(parseError)
        let headers = HTTPHeaders([
            ("content-type", "application/json; charset=utf-8"), ("connection", "close"),
            ("content-length", String(refused.body.readableBytes)), ("x-request-id", refused.requestID),
        ])
        let head = HTTPResponseHead(
            version: .http1_1, status: HTTPResponseStatus(statusCode: Int(refused.status.code)), headers: headers)
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(refused.body))), promise: nil)
        context.write(wrapOutboundOut(.end(nil)), promise: nil)
        context.flush()
        HTTP1Guard.lingeringClose(context: context)
    }
}
