import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `phone_challenge_start`: when a user asked for a code, to limit codes per hour.
struct PhoneChallengeStartRecord: ServiceRecord {
    static let databaseTableName = "phone_challenge_start"

    /// Set by SQLite.
    var id: Int64?
    var userId: String
    var startedAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case userId = "user_id"
        case startedAt = "started_at"
    }
}
