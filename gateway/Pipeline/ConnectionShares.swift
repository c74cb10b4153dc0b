import Metrics
import Synchronization

/// Turns for one connection's requests: up to `perConnection` of them at work at once, the
/// rest waiting in arrival order at no cost but their task. HTTP/2 lets one client open a
/// hundred streams per connection; started all at once, they queue every other client's
/// requests behind them (a thousand concurrent GETs from ten connections kept others waiting
/// seconds on two cores). Taking turns, that client's streams wait for each other instead.
/// `/metrics`: `pinhole_gateway_turn_waits_total`, requests that found their connection's
/// turns all taken. A connection's entry lasts while one of its requests holds a turn (and so
/// keeps its channel alive), so its identifier cannot be another connection's meanwhile.
final class ConnectionShares: Sendable {
    let perConnection: Int
    private let shares = Mutex<[ObjectIdentifier: Share]>([:])
    private let tickets = Atomic<UInt64>(0)

    private struct Share {
        var atWork = 0
        var waiting: [(ticket: UInt64, turn: CheckedContinuation<Void, any Error>)] = []
    }

    init(perConnection: Int) {
        precondition(perConnection > 0)
        self.perConnection = perConnection
    }

    /// Requests of `connection` at work and waiting.
    func load(of connection: ObjectIdentifier) -> (atWork: Int, waiting: Int) {
        shares.withLock { shares in shares[connection].map { ($0.atWork, $0.waiting.count) } ?? (0, 0) }
    }

    /// Returns when it is this request's turn on `connection`; throws `CancellationError` if
    /// its task is cancelled first. Every return must be matched by one ``leave(_:)``.
    func enter(_ connection: ObjectIdentifier) async throws {
        // Most requests find a turn free, and wait for nothing.
        if shares.withLock({ Self.takeTurn(on: connection, in: &$0, limit: perConnection) }) { return }
        Counter(label: "pinhole_gateway_turn_waits_total").increment()
        let ticket = tickets.add(1, ordering: .relaxed).newValue
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (turn: CheckedContinuation<Void, any Error>) in
                let admitted = shares.withLock { shares -> Bool? in
                    if Task.isCancelled { return nil }
                    if Self.takeTurn(on: connection, in: &shares, limit: perConnection) { return true }
                    shares[connection]!.waiting.append((ticket, turn))
                    return false
                }
                switch admitted {
                case true?: turn.resume()
                case false?: break
                case nil: turn.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let cancelled = shares.withLock { shares -> CheckedContinuation<Void, any Error>? in
                guard let index = shares[connection]?.waiting.firstIndex(where: { $0.ticket == ticket }) else {
                    return nil
                }
                return shares[connection]!.waiting.remove(at: index).turn
            }
            cancelled?.resume(throwing: CancellationError())
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
        let next = shares.withLock { shares -> CheckedContinuation<Void, any Error>? in
            guard shares[connection] != nil else { return nil }
            if !shares[connection]!.waiting.isEmpty {
                return shares[connection]!.waiting.removeFirst().turn
            }
            shares[connection]!.atWork -= 1
            if shares[connection]!.atWork == 0 { shares[connection] = nil }
            return nil
        }
        next?.resume()
    }
}
