import GRDB
import ServiceHTTP
import Synchronization

extension Doorbell {
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
