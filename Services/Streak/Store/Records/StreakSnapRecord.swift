import Foundation
import GRDB
import ServiceKit

/// A row of `streak_snap`: a snap sent into one streak, for the sender's local day. One per
/// user per streak per day; a day of a streak is complete when both members have one.
struct StreakSnapRecord: ServiceRecord {
    static let databaseTableName = "streak_snap"

    var streakId: String
    var userId: String
    /// The sender's local day, `YYYY-MM-DD`.
    var localDate: String
    var snapId: String
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case streakId = "streak_id"
        case userId = "user_id"
        case localDate = "local_date"
        case snapId = "snap_id"
    }

    /// Who has a snap for `day` in `streak`.
    static func senders(in streak: String, on day: LocalDay, in db: Database) throws -> Set<String> {
        Set(
            try String.fetchAll(
                db,
                StreakSnapRecord.filter(Columns.streakId == streak && Columns.localDate == day.description)
                    .select(Columns.userId)))
    }
}
