import Foundation

/// What a notification is about.
public enum NotificationType: String, Codable, Sendable, CaseIterable {
    case friendRequest = "friend_request"
    case friendAccepted = "friend_accepted"
}

/// One entry of a user's notification centre.
public struct AppNotification: Codable, Sendable, Equatable {
    public var id: String
    public var type: NotificationType
    public var title: String
    public var body: String
    /// What the client opens on tap (`{"requestId": ...}`, `{"streakId": ...}`).
    public var data: [String: String]
    public var createdAt: Date
    public var readAt: Date?

    enum CodingKeys: String, CodingKey { case id, type, title, body, data, createdAt, readAt }

    public init(
        id: String, type: NotificationType, title: String, body: String, data: [String: String], createdAt: Date,
        readAt: Date?
    ) {
        self.id = id
        self.type = type
        self.title = title
        self.body = body
        self.data = data
        self.createdAt = createdAt
        self.readAt = readAt
    }
}

/// `GET /v1/notifications/unread-count`.
public struct UnreadCount: Codable, Sendable, Equatable {
    public var count: Int

    enum CodingKeys: String, CodingKey { case count }

    public init(count: Int) {
        self.count = count
    }
}

/// `POST /v1/notifications/read-all`.
public struct MarkedRead: Codable, Sendable, Equatable {
    /// How many notifications changed from unread to read.
    public var updated: Int

    enum CodingKeys: String, CodingKey { case updated }

    public init(updated: Int) {
        self.updated = updated
    }
}
