import Foundation

/// What a notification is about. Each type is described once in ``NotificationCatalog``.
public enum NotificationType: String, Codable, Sendable, CaseIterable {
    case friendRequest = "friend_request"
    case friendAccepted = "friend_accepted"
    // Streaks
    case dailyWindow = "daily_window"
    case windowClosing = "window_closing"
    case streakAtRisk = "streak_at_risk"
    case streakBroken = "streak_broken"
    case streakSnap = "streak_snap"
    case streakMilestone = "streak_milestone"
    case nudge
    // Challenges and spots
    case challengeReceived = "challenge_received"
    case opponentUploaded = "opponent_uploaded"
    case votingRequested = "voting_requested"
    case resultPosted = "result_posted"
    case newFollower = "new_follower"
    case spotNearby = "spot_nearby"
    // Challenges' activity types besides those: each follows one of the six preferences.
    case challengeAccepted = "challenge_accepted"
    case votingStarted = "voting_started"
    case challengeWon = "challenge_won"
    case challengeLost = "challenge_lost"
    case spotUnlocked = "spot_unlocked"
    // Engagement and direct messages
    case like
    case reply
    case repost
    case mention
    /// Direct messages: one per message, and one when a stranger's first message lands
    /// in requests.
    case message
    case messageRequest = "message_request"
    // Duress alerts
    case duressAlert = "duress_alert"
    case duressAcknowledged = "duress_acknowledged"
    case duressCleared = "duress_cleared"
    // Moderation: what moderators did to the user's account or objects, and their appeals.
    case moderationWarning = "moderation_warning"
    case contentRemoved = "content_removed"
    case accountSuspended = "account_suspended"
    case accountReinstated = "account_reinstated"
    case appealDecided = "appeal_decided"
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
    /// The person of `actorId` as a view: the row's avatar and name as they are now.
    public var actor: PersonView?

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

    public init(count: Int) {
        self.count = count
    }
}

/// `POST /v1/notifications/read`: the notifications to mark read.
public struct MarkRead: Codable, Sendable, Equatable {
    public var ids: [String]

    public init(ids: [String]) {
        self.ids = ids
    }
}

/// `POST /v1/notifications/read-all` and `POST /v1/notifications/read`.
public struct MarkedRead: Codable, Sendable, Equatable {
    /// How many notifications changed from unread to read.
    public var updated: Int

    public init(updated: Int) {
        self.updated = updated
    }
}

/// What quiet hours do to a push that is not critical.
public enum QuietHoursMode: String, Codable, Sendable {
    /// It waits until the quiet hours end.
    case hold
    /// It is delivered at once, without sound or banner interruption.
    case silent
}

/// Quiet hours in the user's own time zone (`22:00` to `07:00`, `Europe/Paris`).
public struct QuietHoursSettings: Codable, Sendable, Equatable {
    public var start: String
    public var end: String
    public var timeZone: String
    /// `hold` when absent.
    public var mode: QuietHoursMode?

    public init(start: String, end: String, timeZone: String, mode: QuietHoursMode? = nil) {
        self.start = start
        self.end = end
        self.timeZone = timeZone
        self.mode = mode
    }
}

/// `GET/PUT /v1/me/notification-preferences`: per type, whether it is pushed (a type turned
/// off still reaches the notification centre), and quiet hours. `GET` lists every type of the
/// catalog; `PUT` changes the types it names, and sets (or, with `null`, clears) quiet hours
/// only when it names them; it answers the whole set.
public struct NotificationPreferences: Codable, Sendable, Equatable {
    public var push: [String: Bool]
    public var quietHours: QuietHoursSettings?
    /// Whether a decoded body named `quietHours` at all (`null` clears them).
    public var namesQuietHours: Bool

    enum CodingKeys: String, CodingKey { case push, quietHours }

    public init(push: [String: Bool], quietHours: QuietHoursSettings? = nil, namesQuietHours: Bool = false) {
        self.push = push
        self.quietHours = quietHours
        self.namesQuietHours = namesQuietHours || quietHours != nil
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.push = try container.decodeIfPresent([String: Bool].self, forKey: .push) ?? [:]
        self.quietHours = try container.decodeIfPresent(QuietHoursSettings.self, forKey: .quietHours)
        self.namesQuietHours = container.contains(.quietHours)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(push, forKey: .push)
        // Named (an answer, or a PUT that sets or clears them): written, `null` included.
        if namesQuietHours { try container.encode(quietHours, forKey: .quietHours) }
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.push == rhs.push && lhs.quietHours == rhs.quietHours
    }
}
