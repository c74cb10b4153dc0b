import NIOCore
import NIOEmbedded
import NIOHTTP2
import Testing

@testable import AlertsService

/// The push client's connections flush once per turn of the event loop, however many times
/// their streams ask, and lose no frame on the way.
struct FlushCoalescerTests {
    /// Counts the flushes that get past the coalescer and the frames written before them.
    final class FlushCounter: ChannelOutboundHandler {
        typealias OutboundIn = HTTP2Frame
        var flushes = 0
        var frames = 0
        var framesAtFlush: [Int] = []

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            frames += 1
            context.write(data, promise: promise)
        }

        func flush(context: ChannelHandlerContext) {
            flushes += 1
            framesAtFlush.append(frames)
            context.flush()
        }
    }

    static func frame(_ stream: Int32) -> HTTP2Frame {
        HTTP2Frame(streamID: HTTP2StreamID(stream), payload: .data(.init(data: .byteBuffer(ByteBuffer(string: "x")))))
    }

    @Test func threeStreamsFlushingThriceEachLeaveInOneFlushAfterTheLoopTurns() throws {
        let counter = FlushCounter()
        let channel = EmbeddedChannel(handlers: [counter, FlushCoalescer()])
        for stream in [1, 3, 5] as [Int32] {
            for _ in 0..<3 {
                channel.write(Self.frame(stream), promise: nil)
                channel.flush()
            }
        }
        #expect(counter.frames == 9)
        #expect(counter.flushes == 0)
        channel.embeddedEventLoop.run()
        #expect(counter.flushes == 1)
        #expect(counter.framesAtFlush == [9])

        // The next turn's writes get a flush of their own.
        channel.write(Self.frame(7), promise: nil)
        channel.flush()
        channel.embeddedEventLoop.run()
        #expect(counter.framesAtFlush == [9, 10])
        var delivered = 0
        while try channel.readOutbound(as: HTTP2Frame.self) != nil { delivered += 1 }
        #expect(delivered == 10)
        _ = try channel.finish()
    }
}
