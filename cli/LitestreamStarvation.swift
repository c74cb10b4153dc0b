import Foundation

/// Whether Litestream, running on idle cores (`replication.priority` `idle`), is kept from
/// the databases' commits: a database whose WAL was written after Litestream last took a
/// transaction from it, and still has not been taken `limit` later, holds a commit the
/// replica has not had for at least that long. Idle cores come and go with the load; under a
/// load that leaves none, Litestream would fall behind without bound, so `pinhole replicate`
/// then runs it with a normal share and a long slice (``Replicate``).
///
/// It reads two modification times a database: its WAL's (every commit writes it) and that of
/// the directory Litestream writes each transaction it takes into (a file added to it).
struct LitestreamStarvation {
    let limit: Duration
    /// Per database: the WAL's time when a commit newer than Litestream's last transaction
    /// was first seen, and when that was. It waits until Litestream has taken a transaction
    /// at or after that time: a starved Litestream still takes one now and then, each older
    /// than what waits.
    private var waiting: [String: (committed: Date, since: ContinuousClock.Instant)] = [:]

    init(limit: Duration) {
        self.limit = limit
    }

    /// The first of `databases` with a commit Litestream has not taken for longer than
    /// `limit`, looking at the files at `now`; nil when every one is taken, or waited less.
    /// A database Litestream has taken nothing from yet (it starts with a snapshot, which may
    /// take long) is not judged.
    mutating func starved(_ databases: [LitestreamPlan.Database], now: ContinuousClock.Instant) -> String? {
        var found: String?
        for database in databases {
            guard let committed = Self.modified(URL(fileURLWithPath: database.file.path + "-wal")),
                let taken = Self.modified(LitestreamPlan.localTransactionDirectory(of: database.file)),
                committed > taken
            else {
                waiting[database.name] = nil
                continue
            }
            if let entry = waiting[database.name], taken < entry.committed {
                if found == nil, now - entry.since > limit { found = database.name }
            } else {
                waiting[database.name] = (committed, now)
            }
        }
        return found
    }

    /// The file's modification time: the one resource value asked for (Foundation's file
    /// attributes would look up the owner's name and more, four times a second a database).
    static func modified(_ file: URL) -> Date? {
        try? file.resourceValues(forKeys: [.contentModificationDateKey]).contentModificationDate
    }
}
