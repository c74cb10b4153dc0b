import GRDB
import Synchronization

/// Wakes a ``PeriodicService`` before its next interval: the outbox rings when a transaction
/// with events commits, media when a video starts processing. Rings coalesce: many rings
/// while the job runs wake it once more.
public final class Doorbell: Sendable {
    let rings: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation
    /// Connections whose open transaction already rings this bell when it commits.
    private let armed = Mutex<Set<ObjectIdentifier>>([])

    public init() {
        (rings, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Asks for a run as soon as the one under way (if any) ends.
    public func ring() {
        continuation.yield()
    }

    /// Rings once the transaction open on `db` commits (never if it rolls back). However many
    /// writes of one transaction ask, it registers one observer: GRDB visits every registered
    /// observer before each statement, so an observer per event made a transaction of 200
    /// events quadratic (a twelfth of streak's nightly pass).
    public func ring(afterCommitOf db: Database) {
        let connection = ObjectIdentifier(db)
        guard armed.withLock({ $0.insert(connection).inserted }) else { return }
        db.afterNextTransaction(
            onCommit: { [self] _ in
                disarm(connection)
                ring()
            },
            onRollback: { [self] _ in disarm(connection) })
    }

    private func disarm(_ connection: ObjectIdentifier) {
        _ = armed.withLock { $0.remove(connection) }
    }
}
