import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `snap_window`: a user's window for one local day, drawn once and then fixed, with
/// which of its two notifications (`daily_window`, `window_closing`) are done.
struct SnapWindowRecord: ServiceRecord, Equatable {
    static let databaseTableName = "snap_window"

    var userId: String
    /// `YYYY-MM-DD`.
    var localDate: String
    var timeZone: String
    var opensAt: Date
    var closesAt: Date
    var openedSent: Bool
    var closingSent: Bool

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case userId = "user_id"
        case localDate = "local_date"
    }

    var rule: SnapWindowRule { SnapWindowRule(opensAt: opensAt, closesAt: closesAt) }
}
