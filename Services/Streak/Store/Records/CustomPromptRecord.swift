import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `custom_prompt`: a Pro user's own prompt for one of their local days.
struct CustomPromptRecord: ServiceRecord, Equatable {
    static let databaseTableName = "custom_prompt"

    var userId: String
    /// `YYYY-MM-DD`.
    var localDate: String
    var text: String
    var emoji: String
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case userId = "user_id"
        case localDate = "local_date"
    }
}
