import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import Testing

@testable import ServiceHTTP

/// The frames a response's writes become: a sized response ends on its last frame, whatever
/// the writer flushed in between; anything else passes as written.
@Suite struct StreamEndCoalescerTests {
    private func head(_ status: Int, length: Int?) -> HTTP2Frame.FramePayload {
        var fields: HPACKHeaders = [":status": "\(status)"]
        if let length { fields.add(name: "content-length", value: "\(length)") }
        return .headers(.init(headers: fields))
    }

    private func data(_ text: String, end: Bool = false) -> HTTP2Frame.FramePayload {
        .data(.init(data: .byteBuffer(ByteBuffer(string: text)), endStream: end))
    }

    /// Writes and flushes `payload` without waiting for the write to complete (a held frame's
    /// write completes when it is sent), as NIO's async channel writer does.
    private func send(_ payload: HTTP2Frame.FramePayload, on channel: EmbeddedChannel) {
        channel.writeAndFlush(payload, promise: nil)
    }

    /// Writes each payload and flushes after each, as Hummingbird does; returns what reached the
    /// connection as (kind, body bytes, END_STREAM).
    private func frames(_ payloads: [HTTP2Frame.FramePayload]) throws -> [(String, Int, Bool)] {
        let channel = EmbeddedChannel(handler: StreamEndCoalescer())
        for payload in payloads { send(payload, on: channel) }
        var out: [(String, Int, Bool)] = []
        while let frame = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) {
            switch frame {
            case .headers(let headers): out.append(("HEADERS", 0, headers.endStream))
            case .data(let data): out.append(("DATA", data.data.readableBytes, data.endStream))
            default: out.append(("other", 0, false))
            }
        }
        _ = try channel.finish()
        return out
    }

    @Test func aSizedResponseIsOneWriteEndingOnItsBody() throws {
        let out = try frames([head(200, length: 5), data("hello"), data("", end: true)])
        #expect(out.map(\.0) == ["HEADERS", "DATA"])
        #expect(out.map(\.2) == [false, true])
        #expect(out.last?.1 == 5)
    }

    @Test func anEmptyOrHeadResponseEndsOnItsHeaders() throws {
        for length in [0, 145] {
            let out = try frames([head(200, length: length), data("", end: true)])
            #expect(out.count == 1 && out[0].0 == "HEADERS" && out[0].2)
        }
    }

    @Test func aLongBodyFlowsAndOnlyItsLastFrameWaits() throws {
        let channel = EmbeddedChannel(handler: StreamEndCoalescer())
        send(head(200, length: 6), on: channel)
        send(data("abc"), on: channel)
        // The head went out with the first piece; the rest is not yet complete.
        #expect(try channel.readOutbound(as: HTTP2Frame.FramePayload.self) != nil)
        #expect(try channel.readOutbound(as: HTTP2Frame.FramePayload.self) != nil)
        send(data("def"), on: channel)
        // The piece that completes the length waits for the end.
        #expect(try channel.readOutbound(as: HTTP2Frame.FramePayload.self) == nil)
        send(data("", end: true), on: channel)
        guard case .data(let last) = try channel.readOutbound(as: HTTP2Frame.FramePayload.self) else {
            Issue.record("no last frame")
            return
        }
        #expect(last.endStream && last.data.readableBytes == 3)
        #expect(try channel.readOutbound(as: HTTP2Frame.FramePayload.self) == nil)
        _ = try channel.finish()
    }

    @Test func unsizedAndInformationalResponsesPassAsWritten() throws {
        let unsized = try frames([head(200, length: nil), data("abc"), data("", end: true)])
        #expect(unsized.map(\.0) == ["HEADERS", "DATA", "DATA"])
        #expect(unsized.map(\.2) == [false, false, true])
        let informational = try frames([head(103, length: nil), head(200, length: 2), data("ok"), data("", end: true)])
        #expect(informational.map(\.0) == ["HEADERS", "HEADERS", "DATA"])
        #expect(informational.map(\.2) == [false, false, true])
    }
}
