import Hummingbird
import NIOCore
import ServiceKit

/// A request body passed through while counting: past `limit` bytes it stops with
/// `PAYLOAD_TOO_LARGE`, which ``Forwarder`` answers instead of the upstream failure it causes.
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
            guard let chunk = try await base.next() else { return nil }
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
