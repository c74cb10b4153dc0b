import Foundation

/// `POST /v1/friends/requests`.
public struct FriendRequestCreate: Codable, Sendable {
    /// Who to ask.
    public var userId: String

    enum CodingKeys: String, CodingKey { case userId }

    public init(userId: String) {
        self.userId = userId
    }
}

/// Where a friend request stands.
public enum FriendRequestStatus: String, Codable, Sendable, CaseIterable {
    case pending, accepted, declined
}

/// A friend request, as either side sees it.
public struct FriendRequest: Codable, Sendable, Equatable {
    public var id: String
    public var fromUserId: String
    public var toUserId: String
    public var status: FriendRequestStatus
    public var createdAt: Date
    public var respondedAt: Date?

    enum CodingKeys: String, CodingKey { case id, fromUserId, toUserId, status, createdAt, respondedAt }

    public init(
        id: String, fromUserId: String, toUserId: String, status: FriendRequestStatus, createdAt: Date,
        respondedAt: Date?
    ) {
        self.id = id
        self.fromUserId = fromUserId
        self.toUserId = toUserId
        self.status = status
        self.createdAt = createdAt
        self.respondedAt = respondedAt
    }
}

/// Whether a streak can still grow.
public enum StreakStatus: String, Codable, Sendable, CaseIterable {
    /// Both keep snapping; `count` is current.
    case active
    /// A day was missed (count 0) or one blocked the other; it no longer grows.
    case broken
}

/// A mutual daily streak between the reader and a friend.
public struct Streak: Codable, Sendable, Equatable {
    public var id: String
    public var friendId: String
    /// Consecutive days on which both snapped, each in their own time zone.
    public var count: Int
    public var longestCount: Int
    /// The last day (`YYYY-MM-DD`) both snapped.
    public var lastCompletedDate: String?
    public var status: StreakStatus
    public var createdAt: Date

    enum CodingKeys: String, CodingKey { case id, friendId, count, longestCount, lastCompletedDate, status, createdAt }

    public init(
        id: String, friendId: String, count: Int, longestCount: Int, lastCompletedDate: String?,
        status: StreakStatus, createdAt: Date
    ) {
        self.id = id
        self.friendId = friendId
        self.count = count
        self.longestCount = longestCount
        self.lastCompletedDate = lastCompletedDate
        self.status = status
        self.createdAt = createdAt
    }
}

/// `POST /v1/snaps`: today's photo, which counts for every active streak of the sender.
public struct SnapCreate: Codable, Sendable {
    /// A ready media object of the sender's.
    public var mediaId: String
    /// The sender's IANA time zone (`Europe/Paris`); it decides which day the snap is for.
    public var timeZone: String

    enum CodingKeys: String, CodingKey { case mediaId, timeZone }

    public init(mediaId: String, timeZone: String) {
        self.mediaId = mediaId
        self.timeZone = timeZone
    }
}

/// A snap and the streaks as they stand after it.
public struct Snap: Codable, Sendable, Equatable {
    public var id: String
    public var mediaId: String
    /// The day it counts for, in the sender's time zone.
    public var localDate: String
    public var timeZone: String
    public var createdAt: Date
    public var streaks: [Streak]

    enum CodingKeys: String, CodingKey { case id, mediaId, localDate, timeZone, createdAt, streaks }

    public init(id: String, mediaId: String, localDate: String, timeZone: String, createdAt: Date, streaks: [Streak]) {
        self.id = id
        self.mediaId = mediaId
        self.localDate = localDate
        self.timeZone = timeZone
        self.createdAt = createdAt
        self.streaks = streaks
    }
}

/// `friend_request.sent`: someone asked to be friends (alerts notifies the recipient).
public struct FriendRequestSent: DomainEvent, Equatable {
    public static let eventType: EventType = "friend_request.sent"
    public var requestId: String
    public var fromUserId: String
    public var fromDisplayName: String
    public var toUserId: String

    enum CodingKeys: String, CodingKey { case requestId, fromUserId, fromDisplayName, toUserId }

    public init(requestId: String, fromUserId: String, fromDisplayName: String, toUserId: String) {
        self.requestId = requestId
        self.fromUserId = fromUserId
        self.fromDisplayName = fromDisplayName
        self.toUserId = toUserId
    }
}

/// `friend_request.accepted`: the recipient accepted (alerts notifies the sender).
public struct FriendRequestAccepted: DomainEvent, Equatable {
    public static let eventType: EventType = "friend_request.accepted"
    public var requestId: String
    public var fromUserId: String
    public var toUserId: String
    public var toDisplayName: String
    public var streakId: String

    enum CodingKeys: String, CodingKey { case requestId, fromUserId, toUserId, toDisplayName, streakId }

    public init(requestId: String, fromUserId: String, toUserId: String, toDisplayName: String, streakId: String) {
        self.requestId = requestId
        self.fromUserId = fromUserId
        self.toUserId = toUserId
        self.toDisplayName = toDisplayName
        self.streakId = streakId
    }
}

/// `GET /v1/recovery-tokens`.
public struct RecoveryTokenBalance: Codable, Sendable, Equatable {
    public var balance: Int

    enum CodingKeys: String, CodingKey { case balance }

    public init(balance: Int) { self.balance = balance }
}
