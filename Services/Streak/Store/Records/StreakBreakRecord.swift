import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `streak_break`: a due day that closed incomplete and broke a streak, kept for the
/// calendar; `recovered` once a recovery token bridged it.
struct StreakBreakRecord: ServiceRecord {
    static let databaseTableName = "streak_break"

    var streakId: String
    /// The missed day, `YYYY-MM-DD`.
    var localDate: String
    /// The count it had.
    var count: Int
    var recovered: Bool

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case streakId = "streak_id"
        case localDate = "local_date"
        case recovered
    }

    /// Inserts it unless the day is recorded already, with a statement the connection keeps
    /// (the deadline job records a break for every streak it breaks).
    func insertPrepared(_ db: Database) throws {
        try db.cachedStatement(
            sql: "INSERT OR IGNORE INTO streak_break (streak_id, local_date, count, recovered) VALUES (?, ?, ?, ?)"
        ).execute(arguments: [streakId, localDate, count, recovered])
    }
}
