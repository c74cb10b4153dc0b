import Prometheus
import Testing

@testable import Gateway

/// Turns on one connection: granted in arrival order, passed on when one ends, and never held by
/// a request whose task was cancelled while it waited; each request that waited counted once.
@Suite struct ConnectionSharesTests {
    private final class Connection {}

    /// Waits (briefly) until `connection` has `count` requests waiting.
    private func waitUntil(_ shares: ConnectionShares, _ connection: ObjectIdentifier, waiting count: Int) async {
        for _ in 0..<500 where shares.load(of: connection).waiting != count {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test func turnsGoInArrivalOrderAndACancelledWaiterTakesNone() async throws {
        let registry = PrometheusCollectorRegistry()
        let shares = ConnectionShares(perConnection: 2, registry: registry)
        let (one, other) = (Connection(), Connection())
        let connection = ObjectIdentifier(one)
        try await shares.enter(connection)
        try await shares.enter(connection)
        // Another connection is not held up by this one's full turns.
        try await shares.enter(ObjectIdentifier(other))
        shares.leave(ObjectIdentifier(other))
        #expect(shares.load(of: ObjectIdentifier(other)) == (0, 0))

        let order = OrderLog()
        let first = Task {
            try await shares.enter(connection)
            await order.append("first")
        }
        await waitUntil(shares, connection, waiting: 1)
        let cancelled = Task { try await shares.enter(connection) }
        await waitUntil(shares, connection, waiting: 2)
        let second = Task {
            try await shares.enter(connection)
            await order.append("second")
        }
        await waitUntil(shares, connection, waiting: 3)

        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
        #expect(shares.load(of: connection) == (2, 2))
        shares.leave(connection)
        try await first.value
        shares.leave(connection)
        try await second.value
        #expect(await order.entries == ["first", "second"])
        #expect(shares.load(of: connection) == (2, 0))
        shares.leave(connection)
        shares.leave(connection)
        #expect(shares.load(of: connection) == (0, 0))
        // Three waited (the cancelled one too); those that found a turn free did not count.
        #expect(registry.emitToString().contains("\npinhole_gateway_turn_waits_total 3\n"))
        withExtendedLifetime((one, other)) {}
    }
}

private actor OrderLog {
    private(set) var entries: [String] = []
    func append(_ entry: String) { entries.append(entry) }
}
