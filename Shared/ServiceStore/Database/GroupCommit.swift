import GRDB
import ServiceHTTP
import Synchronization

/// Writes that arrive while another is committing are committed together: one transaction and
/// one disk sync for the lot (with `synchronous=FULL` the sync is most of a small write's time).
///
/// Each write runs in a savepoint of its own, so one that throws is rolled back alone and its
/// caller gets its error while the others commit. No caller hears of success before the
/// transaction holding its write has committed; if the commit fails, every write in it fails.
/// A write that comes alone commits alone, as `DatabasePool.write` would.
///
/// Every `tracedWrite` goes through its pool's one group (``shared(for:)``). Work a write wants
/// done once it is on disk is registered with ``afterCommit(of:_:)``, never GRDB's
/// `afterNextTransaction`, which would run it when the group commits even if this write's
/// savepoint was rolled back.
public final class GroupCommit: Sendable {
    private struct Waiting: Sendable {
        /// Runs the write, keeping its value for `finish`.
        let run: @Sendable (Database) throws -> Void
        /// Resumes the caller: with the write's value, or `error`.
        let finish: @Sendable (_ error: (any Error)?) -> Void
    }

    private struct State {
        var waiting: [Waiting] = []
        var committing = false
    }

    /// Weak: the group of a pool lives in ``shared(for:)``'s table, which must not keep the
    /// pool (and its files) open after its service or test let it go.
    private weak let database: DatabasePool?
    /// Most writes in one transaction (the last of them waits for all the others).
    let limit: Int
    private let state = Mutex(State())

    public init(_ database: DatabasePool, limit: Int = 64) {
        self.database = database
        self.limit = max(1, limit)
    }

    /// Each pool's one group, made on first use.
    private static let groups = Mutex<[ObjectIdentifier: GroupCommit]>([:])

    /// The group every write to `pool` goes through.
    public static func shared(for pool: DatabasePool) -> GroupCommit {
        groups.withLock { groups in
            let key = ObjectIdentifier(pool)
            // A pool gone may have left its group under an identifier a new pool now has.
            if let group = groups[key], group.database === pool { return group }
            groups = groups.filter { $0.value.database != nil }
            let group = GroupCommit(pool)
            groups[key] = group
            return group
        }
    }

    /// The after-commit work of the grouped write running on a connection, kept apart until its
    /// savepoint is released (and dropped if it is rolled back).
    private static let pendingWork = Mutex<[ObjectIdentifier: [@Sendable () -> Void]]>([:])

    /// Runs `work` once the write running on `db` is committed (never if it is rolled back): in
    /// a group, after the group's transaction commits and before any of its callers resume;
    /// alone, as GRDB's `afterNextTransaction` does.
    public static func afterCommit(of db: Database, _ work: @escaping @Sendable () -> Void) {
        let collected = pendingWork.withLock { pending -> Bool in
            guard pending[ObjectIdentifier(db)] != nil else { return false }
            pending[ObjectIdentifier(db)]?.append(work)
            return true
        }
        if !collected { db.afterNextTransaction { _ in work() } }
    }

    /// Runs `body` in a savepoint of the write running on `db`: if it throws, its changes and
    /// the after-commit work it registered (``afterCommit(of:_:)``) are dropped and the rest of
    /// the write goes on; for a write that takes parts of its work or leaves them (a batch of
    /// events, each applied or refused on its own).
    public static func savepoint<T>(in db: Database, _ body: () throws -> T) throws -> T {
        let connection = ObjectIdentifier(db)
        let grouped = pendingWork.withLock { pending -> Int? in
            guard let work = pending[connection] else {
                pending[connection] = []
                return nil
            }
            return work.count
        }
        var kept = false
        defer {
            // Inside a group's write its kept work stays where the group collects it; alone, it
            // waits for this transaction's commit.
            let alone = pendingWork.withLock { pending -> [@Sendable () -> Void] in
                guard let grouped else { return pending.removeValue(forKey: connection) ?? [] }
                if !kept { pending[connection]?.removeSubrange(grouped...) }
                return []
            }
            if kept { for work in alone { db.afterNextTransaction { _ in work() } } }
        }
        var value: T?
        try db.inSavepoint {
            value = try body()
            return .commit
        }
        kept = true
        return value!
    }

    /// How many writes wait for the next group, and whether a group is being committed (for tests).
    var queue: (waiting: Int, committing: Bool) { state.withLock { ($0.waiting.count, $0.committing) } }

    /// Runs `updates` in the next group's transaction; returns once that transaction committed.
    public func write<T: Sendable>(_ updates: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let value = Mutex<T?>(nil)
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let waiting = Waiting(
                run: { db in
                    let result = try updates(db)
                    value.withLock { $0 = result }
                },
                finish: { error in
                    if let error { continuation.resume(throwing: error) } else { continuation.resume() }
                })
            let leads = state.withLock { state in
                state.waiting.append(waiting)
                guard !state.committing else { return false }
                state.committing = true
                return true
            }
            if leads { Task { await self.commitWaiting() } }
        }
        // Set by `run` before the commit that resumed this caller.
        return value.withLock { $0! }
    }

    /// Runs each write of `group` in a savepoint of its own; returns each one's error (nil for
    /// those kept) and the after-commit work of those kept.
    private static func runTogether(
        _ group: [Waiting], in db: Database
    ) -> ([(any Error)?], [@Sendable () -> Void]) {
        let connection = ObjectIdentifier(db)
        defer { _ = pendingWork.withLock { $0.removeValue(forKey: connection) } }
        var work: [@Sendable () -> Void] = []
        let failures = group.map { waiting -> (any Error)? in
            pendingWork.withLock { $0[connection] = [] }
            do {
                try db.inSavepoint {
                    try waiting.run(db)
                    return .commit
                }
                work += pendingWork.withLock { $0[connection] ?? [] }
                return nil
            } catch {
                return error
            }
        }
        return (failures, work)
    }

    /// Commits what waits, a group at a time, until nothing does.
    private func commitWaiting() async {
        while true {
            let group = state.withLock { state in
                let group = Array(state.waiting.prefix(limit))
                state.waiting.removeFirst(group.count)
                if group.isEmpty { state.committing = false }
                return group
            }
            guard !group.isEmpty else { return }
            guard let database else {
                let error = ServiceError(.serviceUnavailable, "The database is closed.")
                for waiting in group { waiting.finish(error) }
                continue
            }
            if group.count == 1 {
                do {
                    try await database.write { db in try group[0].run(db) }
                    group[0].finish(nil)
                } catch {
                    group[0].finish(error)
                }
                continue
            }
            let failures: [(any Error)?]
            let work: [@Sendable () -> Void]
            do {
                (failures, work) = try await database.write { db in Self.runTogether(group, in: db) }
            } catch {
                for waiting in group { waiting.finish(error) }
                continue
            }
            for run in work { run() }
            for (waiting, failure) in zip(group, failures) { waiting.finish(failure) }
        }
    }
}
