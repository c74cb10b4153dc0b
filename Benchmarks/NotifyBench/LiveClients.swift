import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import NIOWebSocket

/// The live benchmark's ten thousand clients, as NIO channel handlers: TLS, the HTTP/1.1
/// upgrade, then WebSocket frames read where they arrive, with no task or async stream per
/// socket. A phone holds one socket on its own CPU; here all of them share the two cores with
/// the stack being measured (with these, and the byte search in `Arrivals`, this process's CPU
/// per notification fell by a quarter against the async client's task woken per message).
enum LiveClients {
    /// Opens a WebSocket to `path` on `host:port` with `token` as the bearer; its frames go to
    /// `arrivals`. The channel is returned to be closed at the end.
    static func open(
        host: String, port: Int, path: String, token: String, tls: NIOSSLContext, arrivals: Arrivals,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async -> (any Channel)? {
        let bootstrap = ClientBootstrap(group: group).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture {
                let request = UpgradeRequest(host: "\(host):\(port)", path: path, token: token, arrivals: arrivals)
                // The upgrade completes on this channel's event loop, where the handler lives.
                let requestOnLoop = NIOLoopBound(request, eventLoop: channel.eventLoop)
                let upgrader = NIOWebSocketClientUpgrader(maxFrameSize: 1 << 16) { channel, _ in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(FrameReader(arrivals: arrivals))
                    }
                }
                let pipeline = channel.pipeline.syncOperations
                try pipeline.addHandler(NIOSSLClientHandler(context: tls, serverHostname: "localhost"))
                // A first frame may come in the same read as the upgrade's answer: kept.
                try pipeline.addHTTPClientHandlers(
                    leftOverBytesStrategy: .forwardBytes,
                    withClientUpgrade: (
                        upgraders: [upgrader],
                        completionHandler: { context in
                            context.pipeline.syncOperations.removeHandler(requestOnLoop.value, promise: nil)
                        }
                    ))
                try pipeline.addHandler(request)
            }
        }
        do {
            return try await bootstrap.connect(host: host, port: port).get()
        } catch {
            arrivals.failed("\(error)")
            return nil
        }
    }

    /// Sends the upgrade request once connected; a response that is not the upgrade ends it.
    final class UpgradeRequest: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = HTTPClientResponsePart
        typealias OutboundOut = HTTPClientRequestPart

        let host: String
        let path: String
        let token: String
        let arrivals: Arrivals

        init(host: String, path: String, token: String, arrivals: Arrivals) {
            (self.host, self.path, self.token, self.arrivals) = (host, path, token, arrivals)
        }

        func channelActive(context: ChannelHandlerContext) {
            let headers = HTTPHeaders([("Host", host), ("Authorization", "Bearer \(token)"), ("Content-Length", "0")])
            context.write(
                wrapOutboundOut(.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: headers))),
                promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            if case .head(let head) = unwrapInboundIn(data) {
                arrivals.failed("not upgraded: HTTP \(head.status.code)")
                context.close(promise: nil)
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            arrivals.failed("\(error)")
            context.close(promise: nil)
        }
    }

    /// Reads the socket's frames: text to `arrivals`, pings answered, the close code kept.
    final class FrameReader: ChannelInboundHandler {
        typealias InboundIn = WebSocketFrame
        typealias OutboundOut = WebSocketFrame

        let arrivals: Arrivals
        private var text: ByteBuffer?
        private var opened = false
        private var closeCode = 0

        init(arrivals: Arrivals) { self.arrivals = arrivals }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let now = Arrivals.Instant()
            let frame = unwrapInboundIn(data)
            switch frame.opcode {
            case .text where frame.fin:
                received(frame.unmaskedData, at: now)
            case .text:
                text = frame.unmaskedData
            case .continuation:
                var part = frame.unmaskedData
                text?.writeBuffer(&part)
                if frame.fin, let whole = text {
                    text = nil
                    received(whole, at: now)
                }
            case .ping:
                let pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
                context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
            case .connectionClose:
                var reason = frame.unmaskedData
                closeCode = reason.readInteger(as: UInt16.self).map(Int.init) ?? 0
                var code = ByteBuffer()
                code.writeInteger(UInt16(1000))
                let reply = WebSocketFrame(fin: true, opcode: .connectionClose, maskKey: .random(), data: code)
                context.writeAndFlush(wrapOutboundOut(reply)).assumeIsolated().whenComplete { _ in
                    context.close(promise: nil)
                }
            default:
                break
            }
        }

        private func received(_ message: ByteBuffer, at instant: Arrivals.Instant) {
            if !opened {
                opened = true
                arrivals.state.withLock { $0.opened += 1 }
            }
            arrivals.arrived(message, at: instant)
        }

        func channelInactive(context: ChannelHandlerContext) {
            let code = closeCode
            arrivals.state.withLock {
                $0.ended += 1
                $0.closeCodes[code, default: 0] += 1
            }
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            context.close(promise: nil)
        }
    }
}
