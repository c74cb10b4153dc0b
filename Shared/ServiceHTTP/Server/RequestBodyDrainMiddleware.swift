import Hummingbird
import NIOCore
import Synchronization

/// Reads whatever a handler left unread of the request body (up to `limit` bytes) before the
/// response goes out.
///
/// An HTTP/2 client still sending its body when the answer completes is left with a
/// half-finished stream; AsyncHTTPClient (which the gateway uses to reach every service) then
/// hangs on shutdown or crashes when that connection closes. Answering only once the body has
/// arrived keeps every internal stream well-formed. Bodies beyond `limit` are not drained: the
/// stream is reset instead, which is cheaper than reading them.
public struct RequestBodyDrainMiddleware<Context: RequestContext>: RouterMiddleware {
    let limit: Int

    public init(limit: Int) {
        self.limit = limit
    }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let reader = BodyReader(body: request.body)
        // A client that sent `Expect: 100-continue` and was answered before anyone read its
        // body (so before any `100 Continue`) sends none: draining would hold the answer until
        // it gave up waiting (curl: a second) and sent the body anyway.
        let drains: @Sendable () -> Bool = { [expects = request.headers[.expect] != nil] in
            !expects || reader.started
        }
        var request = request
        request.body = RequestBody(asyncSequence: reader.sequence)
        do {
            let response = try await next(request, context)
            if drains() { await reader.drain(limit: limit) }
            return response
        } catch {
            if drains() { await reader.drain(limit: limit) }
            throw error
        }
    }
}

/// Owns the one iterator a request body allows, so that what the handler did not read can
/// still be read afterwards.
///
/// Reads never overlap: a read that starts while another is under way ends the sequence for
/// its caller (returns nil) instead of touching the iterator, which NIO allows only one task
/// to use. That happens when a handler returns (an upstream failed) while a task it started,
/// such as the HTTP client streaming the body upstream, is still reading: the drain then
/// gives way and the stream is reset.
///
/// `@unchecked Sendable` because the iterator is not: `busy` gives one reader at a time
/// exclusive use of it.
final class BodyReader: @unchecked Sendable {
    private let body: RequestBody
    private var iterator: RequestBody.AsyncIterator?
    private var finished = false
    private let busy = Atomic<Bool>(false)
    private let reading = Atomic<Bool>(false)

    /// Whether anyone has asked for the body yet.
    var started: Bool { reading.load(ordering: .acquiring) }

    init(body: RequestBody) {
        self.body = body
    }

    var sequence: Sequence { Sequence(reader: self) }

    func next() async throws -> ByteBuffer? {
        reading.store(true, ordering: .releasing)
        guard busy.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
            return nil
        }
        defer { busy.store(false, ordering: .releasing) }
        guard !finished else { return nil }
        if iterator == nil { iterator = body.makeAsyncIterator() }
        let chunk = try await iterator!.next()
        if chunk == nil { finished = true }
        return chunk
    }

    func drain(limit: Int) async {
        var drained = 0
        while drained <= limit, let chunk = try? await next() {
            drained += chunk.readableBytes
        }
    }

    struct Sequence: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let reader: BodyReader

        struct AsyncIterator: AsyncIteratorProtocol {
            let reader: BodyReader
            mutating func next() async throws -> ByteBuffer? { try await reader.next() }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(reader: reader) }
    }
}
