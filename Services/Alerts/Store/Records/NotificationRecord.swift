import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

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
        case type
        case actorId = "actor_id"
        case data
        case readAt = "read_at"
        case createdAt = "created_at"
    }

    /// The notification `id`, with a statement the connection keeps.
    static func find(_ id: String, in db: Database) throws -> NotificationRecord? {
        try fetchOne(db.cachedStatement(sql: "SELECT * FROM notification WHERE id = ?"), arguments: [id])
    }

    /// How many of `user`'s notifications are unread (a push's badge), with a kept statement.
    static func unreadCount(of user: String, in db: Database) throws -> Int {
        try Int.fetchOne(
            db.cachedStatement(sql: "SELECT COUNT(*) FROM notification WHERE user_id = ? AND read_at IS NULL"),
            arguments: [user]) ?? 0
    }

    var contract: AppNotification {
        let fields = (try? JSONCoding.sharedDecoder.decode([String: String].self, from: Data(data.utf8))) ?? [:]
        return AppNotification(
            id: id, type: type, title: title, body: body, data: fields, link: link, actorId: actorId,
            createdAt: createdAt, readAt: readAt)
    }
}

extension NotificationRecord {
    /// Read by hand rather than through `Decodable`: every push reads its notification first.
    init(row: Row) throws {
        id = try row.decode(forColumn: "id")
        userId = try row.decode(forColumn: "user_id")
        type = try row.decode(forColumn: "type")
        title = try row.decode(forColumn: "title")
        body = try row.decode(forColumn: "body")
        data = try row.decode(forColumn: "data")
        link = try row.decode(forColumn: "link")
        actorId = try row.decode(forColumn: "actor_id")
        sourceEventId = try row.decode(forColumn: "source_event_id")
        createdAt = try row.decode(forColumn: "created_at")
        readAt = try row.decode(forColumn: "read_at")
    }
}

extension DerivableRequest<NotificationRecord> {
    /// `user`'s notifications.
    func of(_ user: String) -> Self { filter(NotificationRecord.Columns.userId == user) }

    /// Those not read yet.
    func unread() -> Self { filter(NotificationRecord.Columns.readAt == nil) }
}

extension NotificationType: DatabaseValueConvertible {}
