import NIOCore
import NIOEmbedded
import NIOHTTP2
import Testing

@testable import Gateway

/// A service connection that goes silent is pinged, and given up when the PING is not answered.
@Suite struct UpstreamConnectionWatcherTests {
    private func silence(_ channel: EmbeddedChannel) {
        channel.pipeline.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.read)
    }

    private func sentPing(_ channel: EmbeddedChannel) throws -> Bool {
        guard let frame = try channel.readOutbound(as: HTTP2Frame.self),
            case .ping(_, ack: false) = frame.payload
        else { return false }
        return true
    }

    @Test func aSilentConnectionIsPingedAndClosedWhenThePingGoesUnanswered() throws {
        let channel = EmbeddedChannel(handler: UpstreamConnectionWatcher())
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        silence(channel)
        #expect(try sentPing(channel))
        // An answer (any frame) keeps the connection: the next silence is another PING.
        let ack = HTTP2Frame(streamID: .rootStream, payload: .ping(HTTP2PingData(withInteger: 0), ack: true))
        try channel.writeInbound(ack)
        _ = try channel.readInbound(as: HTTP2Frame.self)
        silence(channel)
        #expect(try sentPing(channel))
        #expect(channel.isActive)
        // No answer within the next silent interval: closed.
        silence(channel)
        #expect(!channel.isActive)
        _ = try? channel.finish()
    }
}
