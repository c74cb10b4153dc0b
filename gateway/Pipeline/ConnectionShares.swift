import Prometheus
import Synchronization

/// Turns for one connection's requests: up to `perConnection` of them at work at once, the
/// rest waiting in arrival order at no cost but their task. HTTP/2 lets one client open a
/// hundred streams per connection; started all at once, they queue every other client's
/// requests behind them (a thousand concurrent GETs from ten connections kept others waiting
/// seconds on two cores). Taking turns, that client's streams wait for each other instead.
/// `/metrics`: `pinhole_gateway_turn_waits_total`, requests that found their connection's
/// turns all taken (the gateway's own registry's counter, made once: not a metrics lookup for
/// every request that waits). A connection's entry lasts while one of its requests holds a
/// turn (and so keeps its channel alive), so its identifier cannot be another connection's
/// meanwhile.
final class ConnectionShares: Sendable {
    let perConnection: Int
    private let shares = Mutex<[ObjectIdentifier: Share]>([:])
    private let tickets = Atomic<UInt64>(0)
    private let waits: Prometheus.Counter

    private struct Share {
        var atWork = 0
        var waiting: [(ticket: UInt64, turn: Turn)] = []
    }

    /// How a waiting request is told its turn came: a task resumes, a relayed request
    /// (``StreamRelay``, ``FrameStream``) is called back.
    private enum Turn {
        case task(CheckedContinuation<Void, any Error>)
        case callback(@Sendable () -> Void)

        func take() {
            switch self {
            case .task(let continuation): continuation.resume()
            case .callback(let callback): callback()
            }
        }
    }

    init(perConnection: Int, registry: PrometheusCollectorRegistry) {
        precondition(perConnection > 0)
        self.perConnection = perConnection
        waits = registry.makeCounter(
            name: "pinhole_gateway_turn_waits_total", help: "Requests that found their connection's turns all taken.")
    }

    /// Requests of `connection` at work and waiting.
    func load(of connection: ObjectIdentifier) -> (atWork: Int, waiting: Int) {
        shares.withLock { shares in shares[connection].map { ($0.atWork, $0.waiting.count) } ?? (0, 0) }
    }

    /// Takes a turn on `connection` if one is free (nil), or queues the request and returns its
    /// ticket: `whenTaken` is called, from whichever thread gives a turn back, once the turn is
    /// its. A turn taken either way must be matched by one ``leave(_:)``; a queued request that
    /// no longer wants its turn calls ``withdraw(_:from:)`` (``StreamRelay`` and ``FrameStream``,
    /// which cannot wait in a task).
    func enter(_ connection: ObjectIdentifier, whenTaken: @escaping @Sendable () -> Void) -> UInt64? {
        let ticket = tickets.add(1, ordering: .relaxed).newValue
        let queued = shares.withLock { shares in
            if Self.takeTurn(on: connection, in: &shares, limit: perConnection) { return false }
            shares[connection]!.waiting.append((ticket, .callback(whenTaken)))
            return true
        }
        guard queued else { return nil }
        waits.increment()
        return ticket
    }

    /// Takes `ticket` out of `connection`'s queue; false if its turn was already given (its
    /// callback then comes, and its turn must be left).
    func withdraw(_ ticket: UInt64, from connection: ObjectIdentifier) -> Bool {
        shares.withLock { shares in
            guard let index = shares[connection]?.waiting.firstIndex(where: { $0.ticket == ticket }) else {
                return false
            }
            shares[connection]!.waiting.remove(at: index)
            return true
        }
    }

    private func tryEnter(_ connection: ObjectIdentifier) -> Bool {
        shares.withLock { Self.takeTurn(on: connection, in: &$0, limit: perConnection) }
    }

    /// Returns when it is this request's turn on `connection`; throws `CancellationError` if
    /// its task is cancelled first. Every return must be matched by one ``leave(_:)``.
    func enter(_ connection: ObjectIdentifier) async throws {
        // Most requests find a turn free, and wait for nothing.
        if tryEnter(connection) { return }
        waits.increment()
        let ticket = tickets.add(1, ordering: .relaxed).newValue
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (turn: CheckedContinuation<Void, any Error>) in
                let admitted = shares.withLock { shares -> Bool? in
                    if Task.isCancelled { return nil }
                    if Self.takeTurn(on: connection, in: &shares, limit: perConnection) { return true }
                    shares[connection]!.waiting.append((ticket, .task(turn)))
                    return false
                }
                switch admitted {
                case true?: turn.resume()
                case false?: break
                case nil: turn.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let cancelled = shares.withLock { shares -> Turn? in
                guard let index = shares[connection]?.waiting.firstIndex(where: { $0.ticket == ticket }) else {
                    return nil
                }
                return shares[connection]!.waiting.remove(at: index).turn
            }
            if case .task(let continuation) = cancelled { continuation.resume(throwing: CancellationError()) }
        }
    }

    private static func takeTurn(
        on connection: ObjectIdentifier, in shares: inout [ObjectIdentifier: Share], limit: Int
    ) -> Bool {
        guard shares[connection, default: Share()].atWork < limit else { return false }
        shares[connection, default: Share()].atWork += 1
        return true
    }

    /// Ends a turn on `connection`: the longest-waiting request there takes it.
    func leave(_ connection: ObjectIdentifier) {
        let next = shares.withLock { shares -> Turn? in
            guard shares[connection] != nil else { return nil }
            if !shares[connection]!.waiting.isEmpty {
                return shares[connection]!.waiting.removeFirst().turn
            }
            shares[connection]!.atWork -= 1
            if shares[connection]!.atWork == 0 { shares[connection] = nil }
            return nil
        }
        next?.take()
    }
}
