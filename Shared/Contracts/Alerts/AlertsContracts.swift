import Foundation

/// What a notification is about. Each type is described once in ``NotificationCatalog``.
public enum NotificationType: String, Codable, Sendable, CaseIterable {
    case friendRequest = "friend_request"
    case friendAccepted = "friend_accepted"
    // StreakSnap
    case dailyWindow = "daily_window"
    case streakAtRisk = "streak_at_risk"
    case streakBroken = "streak_broken"
    case milestone
    case nudge
    // SkateHubba
    case challengeReceived = "challenge_received"
    case opponentUploaded = "opponent_uploaded"
    case votingRequested = "voting_requested"
    case resultPosted = "result_posted"
    case newFollower = "new_follower"
    case spotNearby = "spot_nearby"
    // Transrify
    case duressAlert = "duress_alert"
}

/// One entry of a user's notification centre.
public struct AppNotification: Codable, Sendable, Equatable {
    public var id: String
    public var type: NotificationType
    public var title: String
    public var body: String
    /// The ids the notification is about (`{"requestId": ...}`, `{"streakId": ...}`).
    public var data: [String: String]
    /// The deep link the app opens on tap (`/challenge/{id}/playback`), from the catalog.
    public var link: String?
    /// The user whose action made it, if any.
    public var actorId: String?
    public var createdAt: Date
    public var readAt: Date?

    enum CodingKeys: String, CodingKey { case id, type, title, body, data, link, actorId, createdAt, readAt }

    public init(
        id: String, type: NotificationType, title: String, body: String, data: [String: String],
        link: String? = nil, actorId: String? = nil, createdAt: Date, readAt: Date?
    ) {
        self.id = id
        self.type = type
        self.title = title
        self.body = body
        self.data = data
        self.link = link
        self.actorId = actorId
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

/// `POST /v1/notifications/read`: the notifications to mark read.
public struct MarkRead: Codable, Sendable, Equatable {
    public var ids: [String]

    enum CodingKeys: String, CodingKey { case ids }

    public init(ids: [String]) {
        self.ids = ids
    }
}

/// `POST /v1/notifications/read-all` and `POST /v1/notifications/read`.
public struct MarkedRead: Codable, Sendable, Equatable {
    /// How many notifications changed from unread to read.
    public var updated: Int

    enum CodingKeys: String, CodingKey { case updated }

    public init(updated: Int) {
        self.updated = updated
    }
}

/// `GET/PUT /v1/me/notification-preferences`: per type, whether it is pushed. A type turned
/// off still reaches the notification centre. `GET` lists every type of the catalog; `PUT`
/// changes the types it names and answers the whole set.
public struct NotificationPreferences: Codable, Sendable, Equatable {
    public var push: [String: Bool]

    enum CodingKeys: String, CodingKey { case push }

    public init(push: [String: Bool]) {
        self.push = push
    }
}
