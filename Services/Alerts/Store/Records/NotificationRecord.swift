import Contracts
import Foundation
import GRDB
import ServiceKit

/// A row of `notification`. `sourceEventId` is unique: one event makes at most one
/// notification, however often it is delivered.
struct NotificationRecord: ServiceRecord {
    static let databaseTableName = "notification"

    var id: String
    var userId: String
    var type: NotificationType
    var title: String
    var body: String
    /// JSON object of strings.
    var data: String
    /// The deep link, rendered from the catalog; nil on rows made before links existed.
    var link: String?
    var actorId: String?
    var sourceEventId: String
    var createdAt: Date
    var readAt: Date?

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case userId = "user_id"
        case readAt = "read_at"
    }

    var contract: AppNotification {
        let fields = (try? JSONDecoder().decode([String: String].self, from: Data(data.utf8))) ?? [:]
        return AppNotification(
            id: id, type: type, title: title, body: body, data: fields, link: link, actorId: actorId,
            createdAt: createdAt, readAt: readAt)
    }
}

extension DerivableRequest<NotificationRecord> {
    /// `user`'s notifications.
    func of(_ user: String) -> Self { filter(NotificationRecord.Columns.userId == user) }

    /// Those not read yet.
    func unread() -> Self { filter(NotificationRecord.Columns.readAt == nil) }
}

extension NotificationType: DatabaseValueConvertible {}
