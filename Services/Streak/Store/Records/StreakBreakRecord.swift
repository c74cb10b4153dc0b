import Foundation
import GRDB
import ServiceKit

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
}
