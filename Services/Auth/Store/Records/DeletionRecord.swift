import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `deletion`: an account deletion, from the request until every service has
/// confirmed and the user row itself is gone.
struct DeletionRecord: ServiceRecord {
    static let databaseTableName = "deletion"

    var id: String
    var userId: String
    /// The `user.deleted` event; its outstanding deliveries are the services yet to confirm.
    var eventId: String
    var requestedAt: Date
    var completedAt: Date?

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case userId = "user_id"
        case completedAt = "completed_at"
    }
}
