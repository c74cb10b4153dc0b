import NIOCore
import NIOEmbedded
import NIOHTTP2
import Testing

@testable import ServiceHTTP

/// An HTTP/2 connection flushes once per turn of the event loop, however many times its
/// streams ask, and loses no frame on the way.
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
        let channel = EmbeddedChannel(handlers: [counter, FlushCoalescer<HTTP2Frame>()])
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

    /// Counts the flushes that reach the connection's TLS handler and the bytes before each.
    final class ByteCounter: ChannelOutboundHandler {
        typealias OutboundIn = IOData
        var bytes = 0
        var bytesAtFlush: [Int] = []

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            bytes += unwrapOutboundIn(data).readableBytes
            context.write(data, promise: promise)
        }

        func flush(context: ChannelHandlerContext) {
            bytesAtFlush.append(bytes)
            context.flush()
        }
    }

    @Test func belowHTTP2AFlushGoesAtOnceWhenHalfTheSocketsHighWaterMarkIsHeld() throws {
        let counter = ByteCounter()
        let coalescer = FlushCoalescer<IOData>(byteLimit: FlushCoalescer<IOData>.byteLimit) { $0.readableBytes }
        let channel = EmbeddedChannel(handlers: [counter, coalescer])
        let frame = { (size: Int) in IOData.byteBuffer(ByteBuffer(repeating: 0, count: size)) }
        // Three streams' frames of 12 KiB: the third puts 36 KiB in hand, so its flush goes now.
        for _ in 0..<3 {
            channel.write(frame(12 * 1024), promise: nil)
            channel.flush()
        }
        #expect(counter.bytesAtFlush == [36 * 1024])
        // What follows is held again until the loop turns (the pending flush takes it).
        channel.write(frame(1024), promise: nil)
        channel.flush()
        #expect(counter.bytesAtFlush == [36 * 1024])
        channel.embeddedEventLoop.run()
        #expect(counter.bytesAtFlush == [36 * 1024, 37 * 1024])
        _ = try channel.finish()
    }

    @Test func aHeldFlushGoesBeforeTheConnectionCloses() throws {
        let counter = ByteCounter()
        let coalescer = FlushCoalescer<IOData>(byteLimit: FlushCoalescer<IOData>.byteLimit) { $0.readableBytes }
        let channel = EmbeddedChannel(handlers: [counter, coalescer])
        // A GOAWAY's 17 bytes, written and flushed, then the connection closed in the same turn.
        channel.write(IOData.byteBuffer(ByteBuffer(repeating: 0, count: 17)), promise: nil)
        channel.flush()
        #expect(counter.bytesAtFlush.isEmpty)
        _ = channel.close(mode: .all)
        #expect(counter.bytesAtFlush == [17])
        var sent = 0
        while let buffer = try channel.readOutbound(as: IOData.self) { sent += buffer.readableBytes }
        #expect(sent == 17)
    }
}
