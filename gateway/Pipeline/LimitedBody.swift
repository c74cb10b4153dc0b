import Hummingbird
import NIOCore
import NIOHTTP1
import ServiceHTTP

/// A request body passed through while counting: past `limit` bytes it stops with
/// `PAYLOAD_TOO_LARGE`, and a body whose HTTP/1.1 framing breaks (a bad chunk size) with
/// `MALFORMED_REQUEST`; ``Forwarder`` and ``BodyPump`` answer those instead of the upstream
/// failure they cause.
/// Nothing is buffered beyond the chunk in flight.
struct LimitedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let base: RequestBody
    let limit: Int

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let limit: Int
        var seen = 0

        mutating func next() async throws -> ByteBuffer? {
            let next: ByteBuffer?
            do {
                next = try await base.next()
            } catch is HTTPParserError {
                throw ServiceError(.malformedRequest, "The request body could not be read: its framing is malformed.")
            }
            guard let chunk = next else { return nil }
            seen += chunk.readableBytes
            if seen > limit { throw LimitedBody.tooLarge(limit) }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limit: limit)
    }

    static func tooLarge(_ limit: Int) -> ServiceError {
        ServiceError(.payloadTooLarge, "The body is larger than this route accepts (\(limit) bytes).")
    }
}
