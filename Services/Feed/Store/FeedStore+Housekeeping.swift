import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// What ``FeedHousekeeper`` removes: each write is its own short transaction, so posting and
/// reading go on between them.
extension FeedStore {
    /// Deletes the rows of every timeline beyond its newest `keeping`; answers how many went.
    /// Finding the long timelines reads the timeline index once (a read, beside writers).
    func trimTimelines(keeping: Int) async throws -> Int {
        let long = try await database.tracedRead { db in
            try String.fetchAll(
                db.cachedStatement(sql: "SELECT user_id FROM timeline GROUP BY user_id HAVING COUNT(*) > ?"),
                arguments: [keeping])
        }
        var removed = 0
        for user in long {
            removed += try await database.tracedWrite { db in
                try db.execute(
                    sql: """
                        DELETE FROM timeline WHERE user_id = ?1 AND at_ms < (
                            SELECT at_ms FROM timeline WHERE user_id = ?1 ORDER BY at_ms DESC LIMIT 1 OFFSET ?2)
                        """, arguments: [user, keeping - 1])
                return db.changesCount
            }
        }
        return removed
    }

    /// Deletes For You's signals from before `cutoff` (a batch of 5,000 per transaction), but
    /// not "not interested"; answers how many went.
    func expireSignals(before cutoff: Date) async throws -> Int {
        var removed = 0
        while true {
            let batch = try await database.tracedWrite { db in
                try db.execute(
                    sql: """
                        DELETE FROM feed_signal WHERE (user_id, id) IN (
                            SELECT user_id, id FROM feed_signal INDEXED BY feed_signal_by_time
                            WHERE at < ? AND kind != 'hide' LIMIT 5000)
                        """, arguments: [cutoff])
                return db.changesCount
            }
            removed += batch
            if batch < 5000 { return removed }
        }
    }
}
