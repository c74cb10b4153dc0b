import AsyncHTTPClient
import Hummingbird
import NIOCore
import ServiceHTTP

/// Carries a request body to the HTTP client from the handler's own task.
///
/// If the HTTP client read the client's body itself, a read could still be pending in the
/// client's task when the handler answers (the upstream died mid-body, or answered early), and
/// the server would start reading the connection's next request while that read waits on the
/// same stream: two readers, which NIO does not allow (it crashes the process). Here the
/// handler's task does every read; when the upstream stops taking bytes, the pump keeps
/// reading and discards the rest (up to `drainLimit`), and the handler answers only after the
/// pump has ended, so nothing reads the body behind its back.
actor BodyPipe {
    private var chunk: ByteBuffer?
    private var finished: (any Error)??
    private var consumer: CheckedContinuation<ByteBuffer?, any Error>?
    private var producer: CheckedContinuation<Bool, Never>?

    /// Hands one chunk over and waits until it is taken. Returns false when the consumer has
    /// gone (the upstream stopped reading): the caller should stop sending.
    func send(_ buffer: ByteBuffer) async -> Bool {
        if finished != nil { return false }
        if let consumer {
            self.consumer = nil
            consumer.resume(returning: buffer)
            return true
        }
        chunk = buffer
        return await withCheckedContinuation { producer = $0 }
    }

    /// The next chunk, or nil at the end.
    func receive() async throws -> ByteBuffer? {
        if let chunk {
            self.chunk = nil
            producer?.resume(returning: true)
            producer = nil
            return chunk
        }
        if let finished {
            if let error = finished { throw error }
            return nil
        }
        return try await withCheckedThrowingContinuation { consumer = $0 }
    }

    /// Ends the body: normally (`nil`) or with an error for the consumer. A chunk not taken
    /// yet is dropped, and a waiting sender is told to stop.
    func finish(_ error: (any Error)?) {
        guard finished == nil else { return }
        finished = .some(error)
        chunk = nil
        producer?.resume(returning: false)
        producer = nil
        if let consumer {
            self.consumer = nil
            if let error { consumer.resume(throwing: error) } else { consumer.resume(returning: nil) }
        }
    }

    /// The consumer's side, as the HTTP client wants it.
    nonisolated var sequence: Sequence { Sequence(pipe: self) }

    struct Sequence: AsyncSequence, Sendable {
        typealias Element = ByteBuffer
        let pipe: BodyPipe

        struct AsyncIterator: AsyncIteratorProtocol {
            let pipe: BodyPipe
            mutating func next() async throws -> ByteBuffer? { try await pipe.receive() }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(pipe: pipe) }
    }
}

/// The reading side of a forwarded body, and the call it feeds.
enum BodyPump {
    /// Sends `request` through `client` with `body` as its body, pumped from this task (see
    /// ``BodyPipe``), and returns once both the call and the pump have ended. An upstream that
    /// answered early takes no more bytes: the rest is read and discarded, at most
    /// `drainLimit` bytes. When there is no answer and the body itself failed with a
    /// ``ServiceError`` (too large), that is what the client hears, not the upstream failure
    /// it caused.
    static func send(
        _ request: HTTPClientRequest, body: some AsyncSequence<ByteBuffer, any Error> & Sendable, length: Int?,
        through client: InternalClient, timeout: TimeAmount, drainLimit: Int
    ) async throws -> HTTPClientResponse {
        let pipe = BodyPipe()
        var request = request
        request.body = .stream(pipe.sequence, length: length.map { .known(Int64($0)) } ?? .unknown)
        let outgoing = request
        return try await withThrowingTaskGroup(of: Outcome.self) { group in
            group.addTask { .pumped(await run(body, into: pipe, drainLimit: drainLimit)) }
            group.addTask {
                do {
                    let answer = try await client.execute(outgoing, timeout: timeout)
                    // The body ends here, and normally: the HTTP client may be waiting for
                    // its end (every declared byte sent, the end not pumped yet), and an error
                    // there fails the whole exchange, answer included, which then reached our
                    // client cut off after its head.
                    await pipe.finish(nil)
                    return .answered(answer)
                } catch {
                    await pipe.finish(error)
                    throw error
                }
            }
            var answer: HTTPClientResponse?
            var bodyFailure: ServiceError?
            var failure: (any Error)?
            while let result = await group.nextResult() {
                switch result {
                case .success(.answered(let value)): answer = value
                case .success(.pumped(let error)): bodyFailure = error as? ServiceError
                case .failure(let error): failure = error
                }
            }
            if let answer { return answer }
            throw bodyFailure ?? failure ?? CancellationError()
        }
    }

    enum Outcome: Sendable {
        case answered(HTTPClientResponse)
        /// The pump ended, with the error the body ended with, if any.
        case pumped((any Error)?)
    }

    /// Pumps `body` into `pipe`, then discards what the upstream no longer wants, at most
    /// `drainLimit` bytes. Never throws: a broken body ends the pipe with its error, which is
    /// also returned.
    @discardableResult
    static func run(
        _ body: some AsyncSequence<ByteBuffer, any Error>, into pipe: BodyPipe, drainLimit: Int
    ) async -> (any Error)? {
        var accepting = true
        var discarded = 0
        do {
            for try await chunk in body {
                if accepting {
                    accepting = await pipe.send(chunk)
                } else {
                    discarded += chunk.readableBytes
                    if discarded > drainLimit { break }
                }
            }
            await pipe.finish(nil)
            return nil
        } catch {
            await pipe.finish(error)
            return error
        }
    }
}
