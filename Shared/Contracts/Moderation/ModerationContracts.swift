import Foundation

/// Why something is reported.
public enum ReportReason: String, Codable, Sendable, CaseIterable {
    case inappropriate, spam, harassment, other
}

/// What can be reported: every kind of object someone else made.
public enum ReportTargetType: String, Codable, Sendable, CaseIterable {
    case user, post, reply, snap
    /// A challenge clip, named by its media id.
    case challengeClip = "challenge_clip"
    case spot, message
    /// A photo or video screening held for review (moderators' queue only: people report
    /// the post, snap or message that shows it).
    case media

    /// The service that owns objects of this kind (and answers
    /// `GET /internal/moderation-subjects/{type}/{id}` for them).
    public var owner: ServiceName {
        switch self {
        case .user: .auth
        case .post, .reply, .challengeClip, .spot: .feed
        case .snap: .streak
        case .message: .alerts
        case .media: .media
        }
    }
}

/// Where a report stands, as its author sees it.
public enum ReportStatus: String, Codable, Sendable, CaseIterable {
    /// Waiting for a moderator.
    case open
    /// A moderator found nothing wrong.
    case dismissed
    /// A moderator acted on it (removed the object, warned, suspended or banned its author).
    case actioned
}

/// `POST /v1/reports`.
public struct ReportCreate: Codable, Sendable {
    public var targetType: ReportTargetType
    public var targetId: String
    public var reason: ReportReason
    /// Up to 1000 characters.
    public var details: String?

    public init(targetType: ReportTargetType, targetId: String, reason: ReportReason, details: String? = nil) {
        self.targetType = targetType
        self.targetId = targetId
        self.reason = reason
        self.details = details
    }
}

/// A report as its author sees it (`POST /v1/reports`, `GET /v1/reports`).
public struct Report: Codable, Sendable, Equatable {
    public var id: String
    public var targetType: ReportTargetType
    public var targetId: String
    public var reason: ReportReason
    public var details: String?
    public var status: ReportStatus
    public var createdAt: Date
    /// When a moderator dismissed or acted on it.
    public var resolvedAt: Date?

    enum CodingKeys: String, CodingKey {
        case id, targetType, targetId, reason, details, status, createdAt, resolvedAt
    }

    public init(
        id: String, targetType: ReportTargetType, targetId: String, reason: ReportReason, details: String?,
        status: ReportStatus = .open, createdAt: Date, resolvedAt: Date? = nil
    ) {
        self.id = id
        self.targetType = targetType
        self.targetId = targetId
        self.reason = reason
        self.details = details
        self.status = status
        self.createdAt = createdAt
        self.resolvedAt = resolvedAt
    }
}

/// `POST /v1/blocks` and `POST /v1/mutes/users`: the user to block or mute.
public struct BlockCreate: Codable, Sendable {
    public var userId: String

    public init(userId: String) {
        self.userId = userId
    }
}

/// Someone the reader has blocked (`GET /v1/blocks`) or muted (`GET /v1/mutes/users`).
public struct Block: Codable, Sendable, Equatable {
    public var userId: String
    public var createdAt: Date

    public init(userId: String, createdAt: Date) {
        self.userId = userId
        self.createdAt = createdAt
    }
}

/// `content.hidden`: enough distinct users reported it; feed stops listing it.
public struct ContentHidden: DomainEvent, Equatable {
    public static let eventType: EventType = "content.hidden"
    public var targetType: ReportTargetType
    public var targetId: String
    public var reportCount: Int

    public init(targetType: ReportTargetType, targetId: String, reportCount: Int) {
        self.targetType = targetType
        self.targetId = targetId
        self.reportCount = reportCount
    }
}

/// A block set or lifted between two users: `user.blocked` (``UserBlocked``: feed hides each
/// from the other; streak breaks their streak) and `user.unblocked` (``UserUnblocked``: the block
/// is lifted, a broken streak stays broken). `Kind` names which.
public struct BlockChange<Kind: EventName>: DomainEvent, Equatable {
    public static var eventType: EventType { Kind.eventType }
    public var blockerId: String
    public var blockedId: String

    public init(blockerId: String, blockedId: String) {
        self.blockerId = blockerId
        self.blockedId = blockedId
    }
}

/// The name of a block's event.
public enum Blocked: EventName {
    public static let eventType: EventType = "user.blocked"
}

/// The name of a lifted block's event.
public enum Unblocked: EventName {
    public static let eventType: EventType = "user.unblocked"
}

/// `user.blocked`: feed hides each from the other; streak breaks their streak.
public typealias UserBlocked = BlockChange<Blocked>

/// `user.unblocked`: the block is lifted (a broken streak stays broken).
public typealias UserUnblocked = BlockChange<Unblocked>

/// A mute set or lifted: `user.muted` (``UserMuted``: the muter no longer sees the muted user's
/// posts in feeds and search, nor notifications of what they do; the muted user is not told and
/// sees everything as before) and `user.unmuted` (``UserUnmuted``: the mute is lifted). `Kind`
/// names which.
public struct MuteChange<Kind: EventName>: DomainEvent, Equatable {
    public static var eventType: EventType { Kind.eventType }
    public var muterId: String
    public var mutedId: String

    public init(muterId: String, mutedId: String) {
        self.muterId = muterId
        self.mutedId = mutedId
    }
}

/// The name of a mute's event.
public enum Muted: EventName {
    public static let eventType: EventType = "user.muted"
}

/// The name of a lifted mute's event.
public enum Unmuted: EventName {
    public static let eventType: EventType = "user.unmuted"
}

/// `user.muted`: the muter no longer sees the muted user's posts.
public typealias UserMuted = MuteChange<Muted>

/// `user.unmuted`: the mute is lifted.
public typealias UserUnmuted = MuteChange<Unmuted>
