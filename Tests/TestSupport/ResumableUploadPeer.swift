import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A client of the IETF draft "Resumable Uploads for HTTP" for the tests, written from the
/// specification (no package here speaks it): HTTP/1.1 over TLS to the gateway, one connection
/// per request, so a test sees each informational answer (`104 Upload Resumption Supported`)
/// when it arrives and can drop a connection part-way through a body, as a phone that loses its
/// network does.
public struct ResumableUploadPeer: Sendable {
    /// What came back on one connection: the informational heads in order, then the answer
    /// (nil when the connection was dropped first).
    public struct Exchange: Sendable {
        public var informational: [HTTPResponseHead] = []
        public var answer: HTTPResponseHead?
        public var body = Data()

        public var status: Int? { answer.map { Int($0.status.code) } }
        public func header(_ name: String) -> String? { answer?.headers.first(name: name) }
    }

    let port: Int
    let tls: TLSConfiguration
    let token: String
    /// The interop version every request names.
    public let version: String

    public init(port: Int, tls: TLSConfiguration, token: String, version: String) {
        self.port = port
        self.tls = tls
        self.token = token
        self.version = version
    }

    /// Sends one request. With `dropAfter`, sends the head and that many bytes of `body`,
    /// waits for an informational answer and `pause`, then closes the connection without a
    /// word; otherwise sends it all and reads the answer.
    public func send(
        _ method: HTTPMethod, _ path: String, headers: [(String, String)] = [], body: Data = Data(),
        dropAfter: Int? = nil, pause: Duration = .seconds(1)
    ) async throws -> Exchange {
        let collector = Collector()
        let context = try NIOSSLContext(configuration: tls)
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let operations = channel.pipeline.syncOperations
                    try operations.addHandler(NIOSSLClientHandler(context: context, serverHostname: nil))
                    try operations.addHandler(HTTPRequestEncoder())
                    try operations.addHandler(
                        ByteToMessageHandler(HTTPResponseDecoder(informationalResponseStrategy: .forward)))
                    try operations.addHandler(collector)
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        var head = HTTPRequestHead(version: .http1_1, method: method, uri: path)
        head.headers.add(name: "host", value: "127.0.0.1:\(port)")
        head.headers.add(name: "authorization", value: "Bearer \(token)")
        head.headers.add(name: "upload-draft-interop-version", value: version)
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        if method != .HEAD && method != .GET { head.headers.add(name: "content-length", value: String(body.count)) }
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        let sent = dropAfter.map { min($0, body.count) } ?? body.count
        if sent > 0 {
            channel.write(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer(data: body.prefix(sent)))), promise: nil)
        }
        if dropAfter != nil {
            try await channel.writeAndFlush(HTTPClientRequestPart.body(.byteBuffer(ByteBuffer()))).get()
            _ = try? await collector.firstInformational.futureResult.get()
            try await Task.sleep(for: pause)
            // What the peer saw before it went away (closing sends TLS's close_notify, and the
            // gateway's answer to a body cut short may arrive meanwhile: a lost network hears none).
            let seen = collector.exchange.withLockedValue { $0 }
            try? await channel.close().get()
            return seen
        }
        try await channel.writeAndFlush(HTTPClientRequestPart.end(nil)).get()
        let exchange = try await collector.finished.futureResult.get()
        try? await channel.close().get()
        return exchange
    }

    /// Gathers one connection's answer parts.
    final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = HTTPClientResponsePart

        let exchange = NIOLockedValueBox(Exchange())
        let firstInformational: EventLoopPromise<Void>
        let finished: EventLoopPromise<Exchange>

        init() {
            let loop = MultiThreadedEventLoopGroup.singleton.any()
            firstInformational = loop.makePromise()
            finished = loop.makePromise()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head) where head.status.code < 200:
                exchange.withLockedValue { $0.informational.append(head) }
                firstInformational.succeed()
            case .head(let head):
                exchange.withLockedValue { $0.answer = head }
            case .body(let buffer):
                exchange.withLockedValue { $0.body.append(contentsOf: buffer.readableBytesView) }
            case .end:
                finished.succeed(exchange.withLockedValue { $0 })
            }
        }

        func channelInactive(context: ChannelHandlerContext) {
            firstInformational.fail(ChannelError.inputClosed)
            finished.fail(ChannelError.inputClosed)
            context.fireChannelInactive()
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            finished.fail(error)
            context.close(promise: nil)
        }
    }
}
