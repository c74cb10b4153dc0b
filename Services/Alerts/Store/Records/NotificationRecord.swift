import Contracts
import Foundation
import GRDB

/// A row of `notification`. `source_event_id` is unique: one event makes at most one
/// notification, however often it is delivered.
struct NotificationRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "notification"

    var id: String
    var userID: String
    var type: NotificationType
    var title: String
    var body: String
    /// JSON object of strings.
    var data: String
    var sourceEventID: String
    var createdAt: Date
    var readAt: Date?

    enum CodingKeys: String, CodingKey {
        case id
        case userID = "user_id"
        case type, title, body, data
        case sourceEventID = "source_event_id"
        case createdAt = "created_at"
        case readAt = "read_at"
    }

    var contract: AppNotification {
        let fields = (try? JSONDecoder().decode([String: String].self, from: Data(data.utf8))) ?? [:]
        return AppNotification(
            id: id, type: type, title: title, body: body, data: fields, createdAt: createdAt, readAt: readAt)
    }
}

extension NotificationType: DatabaseValueConvertible {}
