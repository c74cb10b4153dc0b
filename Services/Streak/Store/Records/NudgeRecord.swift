import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `nudge`: someone nudged a friend on one of their own local days; one per sender,
/// friend and day.
struct NudgeRecord: ServiceRecord {
    static let databaseTableName = "nudge"

    var fromUserId: String
    var toUserId: String
    /// The sender's local day, `YYYY-MM-DD`.
    var localDate: String
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case fromUserId = "from_user_id"
        case toUserId = "to_user_id"
    }
}
