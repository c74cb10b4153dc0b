import GRDB

extension DatabasePool {
    /// Makes the pool's writer sync the WAL at every commit (`synchronous = FULL`), so that a
    /// write acknowledged is on disk even if the machine loses power right after.
    ///
    /// Setting the pragma in `Configuration.prepareDatabase` is not enough: a `DatabasePool`
    /// turns WAL on after `prepareDatabase` has run and sets its writer to `synchronous =
    /// NORMAL` there (GRDB 7's `Database.setUpWALMode`), which syncs only at checkpoints. The
    /// writer is the only connection that commits, and the pool never reopens it.
    public func syncEveryCommit() throws {
        try writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
    }
}
