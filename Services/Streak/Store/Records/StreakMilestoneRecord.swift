import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `streak_milestone`: a streak reached one of ``Milestones/counts`` on a day (a
/// streak that breaks and starts again reaches them again).
struct StreakMilestoneRecord: ServiceRecord, Equatable {
    static let databaseTableName = "streak_milestone"

    var streakId: String
    /// The day that made it, `YYYY-MM-DD`.
    var localDate: String
    var count: Int
    var reachedAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case streakId = "streak_id"
        case localDate = "local_date"
    }
}
