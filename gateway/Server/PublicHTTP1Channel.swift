import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOHTTP1

/// The gateway's HTTP/1.1 connections: Hummingbird's HTTP/1.1 with the WebSocket upgrade of
/// hummingbird-websocket (``LiveStreamGate`` decides which upgrades are taken), and a
/// ``FirstRequestGuard`` until the first request's head is read.
struct PublicHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value

    let upgrade: HTTP1WebSocketUpgradeChannel
    let headTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        upgrade.setup(channel: channel, logger: logger).flatMapThrowing { value in
            let operations = channel.pipeline.syncOperations
            let upgrader = try operations.handler(
                type: NIOTypedHTTPServerUpgradeHandler<HTTP1WebSocketUpgradeChannel.UpgradeResult>.self)
            try operations.addHandler(FirstRequestGuard(headTimeout: headTimeout), position: .before(upgrader))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await upgrade.handle(value: value, logger: logger)
    }
}
