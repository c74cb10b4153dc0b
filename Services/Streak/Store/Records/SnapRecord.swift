import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `snap`: a photo a user sent into some of their streaks (`streak_snap`) for one of
/// their local days.
struct SnapRecord: ServiceRecord {
    static let databaseTableName = "snap"

    var id: String
    var userId: String
    var mediaId: String
    /// The sender's local day, `YYYY-MM-DD`.
    var localDate: String
    /// The IANA zone the day was computed in.
    var timeZone: String
    var caption: String?
    var prompt: String?
    var createdAt: Date
    /// When moderation hid it from the partners it was sent to (it still counts for the streak).
    var hiddenAt: Date?

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case id, prompt
        case mediaId = "media_id"
        case userId = "user_id"
        case localDate = "local_date"
        case createdAt = "created_at"
        case hiddenAt = "hidden_at"
    }
}
