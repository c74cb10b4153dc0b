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

    let database: DatabasePool
    /// Most writes in one transaction (the last of them waits for all the others).
    let limit: Int
    private let state = Mutex(State())

    public init(_ database: DatabasePool, limit: Int = 64) {
        self.database = database
        self.limit = max(1, limit)
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
            do {
                failures = try await database.write { db in
                    group.map { waiting -> (any Error)? in
                        do {
                            try db.inSavepoint {
                                try waiting.run(db)
                                return .commit
                            }
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
            } catch {
                for waiting in group { waiting.finish(error) }
                continue
            }
            for (waiting, failure) in zip(group, failures) { waiting.finish(failure) }
        }
    }
}
