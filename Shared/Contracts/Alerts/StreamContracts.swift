import Foundation

/// One message of `GET /v1/notifications/stream`: a WebSocket text frame through the gateway,
/// the `data:` of one server-sent event from alerts (whose `event:` is `type`, and whose
/// `id:` is the notification's id on `notification` messages). Every message carries the
/// user's unread count as it stands after the change.
public struct NotificationStreamMessage: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// A new notification (also each one replayed after `after`).
        case notification
        /// Notifications marked read (by this or another connection, or read-all).
        case read
        /// The unread count, sent once when the stream opens (after any replay).
        case unread
        /// More was missed than a reconnect replays: fetch `GET /v1/notifications` again.
        case resync
    }

    public var type: Kind
    public var notification: AppNotification?
    /// The direct message a `message` or `message_request` notification is about, whole (a chat
    /// open on it appends it without asking).
    public var message: DirectMessage?
    public var ids: [String]?
    public var unreadCount: Int
    /// When alerts committed the change a live message carries (to the millisecond); absent on
    /// what a stream sends as it opens (a replay, the unread count). How late a message came is
    /// the client's clock less this one, give or take the two clocks' difference.
    public var committedAt: Date?

    public init(
        type: Kind, notification: AppNotification? = nil, message: DirectMessage? = nil, ids: [String]? = nil,
        unreadCount: Int, committedAt: Date? = nil
    ) {
        self.type = type
        self.notification = notification
        self.message = message
        self.ids = ids
        self.unreadCount = unreadCount
        self.committedAt = committedAt
    }
}

/// The query of `GET /v1/notifications/stream`.
public enum NotificationStreamQuery {
    /// The last notification id the client saw: what came after it is replayed first (the
    /// server-sent events' `Last-Event-ID` header means the same).
    public static let after = "after"
    /// How many missed notifications a reconnect replays; beyond that, `resync`.
    public static let replayLimit = 200
}
