import Hummingbird
import NIOCore
import ServiceKit
import Synchronization

/// A request body passed through while counting: past `limit` bytes it stops with
/// `PAYLOAD_TOO_LARGE`, so a client that lies about (or omits) `Content-Length` still cannot
/// push more than the route allows. Nothing is buffered beyond the chunk in flight.
struct LimitedBody: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let base: RequestBody
    let limit: Int
    let tripped: TripWire

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: RequestBody.AsyncIterator
        let limit: Int
        let tripped: TripWire
        var seen = 0

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else { return nil }
            seen += chunk.readableBytes
            if seen > limit {
                tripped.trip()
                throw ServiceError(.payloadTooLarge, "The body is larger than this route accepts (\(limit) bytes).")
            }
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), limit: limit, tripped: tripped)
    }
}

/// Remembers that a body went over its limit, so the failure the HTTP client reports can be
/// answered as 413 rather than as an upstream failure.
final class TripWire: Sendable {
    private let state = Atomic<Bool>(false)
    func trip() { state.store(true, ordering: .relaxed) }
    var isTripped: Bool { state.load(ordering: .relaxed) }
}
