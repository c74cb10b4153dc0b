import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `notification_preference`: one user's choice for one type (no row: the catalog's
/// default).
struct NotificationPreferenceRecord: ServiceRecord {
    static let databaseTableName = "notification_preference"

    var userId: String
    var type: NotificationType
    var push: Bool
    var updatedAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case userId = "user_id"
    }
}

extension DerivableRequest<NotificationPreferenceRecord> {
    /// `user`'s choices.
    func of(_ user: String) -> Self { filter(NotificationPreferenceRecord.Columns.userId == user) }
}
