import Foundation

/// `POST /v1/friends/requests`.
public struct FriendRequestCreate: Codable, Sendable {
    /// Who to ask.
    public var userId: String

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
    /// The two people as views (in lists of requests).
    public var from: PersonView?
    public var to: PersonView?

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
    /// A day was missed (count 0) or one blocked the other; it no longer grows until both
    /// snap on the same day again (or, after a missed day, someone spends a recovery token).
    case broken
}

/// A mutual daily streak between the reader and a friend, as it stands now: a day that closed
/// unsnapped has broken it even if nobody looked since.
public struct Streak: Codable, Sendable, Equatable {
    public var id: String
    public var friendId: String
    /// Consecutive days on which both snapped, each in their own time zone (0 when broken).
    public var count: Int
    public var longestCount: Int
    /// The last day (`YYYY-MM-DD`) that kept the streak: both snapped, or a recovery bridged it.
    public var lastCompletedDate: String?
    public var status: StreakStatus
    /// The day both must snap for next (`YYYY-MM-DD`), while the streak has a count to lose.
    public var dueDate: String?
    /// When `dueDate` closes for the pair: the end of that day in the later of the two time
    /// zones. Unsnapped by then, the streak breaks.
    public var closesAt: Date?
    /// Less than two hours are left of `dueDate` for one of the two and it is not complete.
    public var atRisk: Bool
    /// Whether the reader and the friend have snapped for the reader's today (or for
    /// `dueDate` while the reader's day is over but the pair's is still open).
    public var snappedByMe: Bool
    public var snappedByFriend: Bool
    /// The last missed day that broke it, who missed it, and the count it had.
    public var brokenDate: String?
    public var missedBy: [String]?
    public var brokenCount: Int?
    /// A recovery token can restore it until this instant (the day after the missed one closes).
    public var recoverableUntil: Date?
    /// Its one recovery is spent.
    public var recoveryUsed: Bool
    public var createdAt: Date
    /// The friend as a view: a streak row's avatar and name.
    public var friend: PersonView?

    enum CodingKeys: String, CodingKey {
        case id, friendId, count, longestCount, lastCompletedDate, status, dueDate, closesAt, atRisk, snappedByMe,
            snappedByFriend, brokenDate, missedBy, brokenCount, recoverableUntil, recoveryUsed, createdAt, friend
    }

    public init(
        id: String, friendId: String, count: Int, longestCount: Int, lastCompletedDate: String?,
        status: StreakStatus, dueDate: String? = nil, closesAt: Date? = nil, atRisk: Bool = false,
        snappedByMe: Bool = false, snappedByFriend: Bool = false, brokenDate: String? = nil,
        missedBy: [String]? = nil, brokenCount: Int? = nil, recoverableUntil: Date? = nil,
        recoveryUsed: Bool = false, createdAt: Date
    ) {
        self.id = id
        self.friendId = friendId
        self.count = count
        self.longestCount = longestCount
        self.lastCompletedDate = lastCompletedDate
        self.status = status
        self.dueDate = dueDate
        self.closesAt = closesAt
        self.atRisk = atRisk
        self.snappedByMe = snappedByMe
        self.snappedByFriend = snappedByFriend
        self.brokenDate = brokenDate
        self.missedBy = missedBy
        self.brokenCount = brokenCount
        self.recoverableUntil = recoverableUntil
        self.recoveryUsed = recoveryUsed
        self.createdAt = createdAt
    }
}

/// `POST /v1/snaps`: today's photo, sent to some or all of the sender's streaks.
public struct SnapCreate: Codable, Sendable {
    /// A ready media object of the sender's.
    public var mediaId: String
    /// The sender's IANA time zone (`Europe/Paris`); it decides which day the snap is for, and
    /// becomes the zone the sender's streak days close in.
    public var timeZone: String
    /// The streaks to send it to; absent: every streak not yet snapped today ("send to all").
    public var streakIds: [String]?
    /// At most 200 characters.
    public var caption: String?
    /// The prompt the photo answers (today's, or a custom one), at most 200 characters.
    public var prompt: String?

    public init(
        mediaId: String, timeZone: String, streakIds: [String]? = nil, caption: String? = nil, prompt: String? = nil
    ) {
        self.mediaId = mediaId
        self.timeZone = timeZone
        self.streakIds = streakIds
        self.caption = caption
        self.prompt = prompt
    }
}

/// A snap and the streaks it was sent to, as they stand after it.
public struct Snap: Codable, Sendable, Equatable {
    public var id: String
    public var mediaId: String
    /// The day it counts for, in the sender's time zone.
    public var localDate: String
    public var timeZone: String
    public var caption: String?
    public var prompt: String?
    public var createdAt: Date
    public var streaks: [Streak]

    public init(
        id: String, mediaId: String, localDate: String, timeZone: String, caption: String? = nil,
        prompt: String? = nil, createdAt: Date, streaks: [Streak]
    ) {
        self.id = id
        self.mediaId = mediaId
        self.localDate = localDate
        self.timeZone = timeZone
        self.caption = caption
        self.prompt = prompt
        self.createdAt = createdAt
        self.streaks = streaks
    }
}

/// One of the two people in a streak, as notifications name them: a user as every event names
/// them.
public typealias StreakMember = EventActor

/// `streak.at_risk` (streak → alerts): two hours before the due day ends for the earlier of the
/// pair, it is not complete. Both are told.
public struct StreakAtRisk: DomainEvent, Equatable {
    public static let eventType: EventType = "streak.at_risk"
    public var streakId: String
    /// The day at risk, `YYYY-MM-DD`.
    public var date: String
    public var count: Int
    /// When the day closes for the pair.
    public var closesAt: Date
    public var members: [StreakMember]
    /// Who has not snapped for the day yet.
    public var waitingFor: [String]

    public init(
        streakId: String, date: String, count: Int, closesAt: Date, members: [StreakMember], waitingFor: [String]
    ) {
        self.streakId = streakId
        self.date = date
        self.count = count
        self.closesAt = closesAt
        self.members = members
        self.waitingFor = waitingFor
    }
}

/// `streak.broken` (streak → alerts): the due day closed incomplete; the count is lost unless
/// someone spends a recovery token before `recoverableUntil`.
public struct StreakBroken: DomainEvent, Equatable {
    public static let eventType: EventType = "streak.broken"
    public var streakId: String
    /// The missed day, `YYYY-MM-DD`.
    public var date: String
    /// The count it had.
    public var count: Int
    public var longestCount: Int
    public var members: [StreakMember]
    public var missedBy: [String]
    public var recoverableUntil: Date?

    enum CodingKeys: String, CodingKey {
        case streakId, date, count, longestCount, members, missedBy, recoverableUntil
    }

    public init(
        streakId: String, date: String, count: Int, longestCount: Int, members: [StreakMember], missedBy: [String],
        recoverableUntil: Date?
    ) {
        self.streakId = streakId
        self.date = date
        self.count = count
        self.longestCount = longestCount
        self.members = members
        self.missedBy = missedBy
        self.recoverableUntil = recoverableUntil
    }
}

/// `streak.snapped` (streak → alerts): a partner sent a snap into the streak.
public struct StreakSnapped: DomainEvent, Equatable {
    public static let eventType: EventType = "streak.snapped"
    public var streakId: String
    public var snapId: String
    public var from: StreakMember
    public var toUserId: String

    public init(streakId: String, snapId: String, from: StreakMember, toUserId: String) {
        self.streakId = streakId
        self.snapId = snapId
        self.from = from
        self.toUserId = toUserId
    }
}

/// `streak.nudged` (streak → alerts): a friend asks the other to snap for today.
public struct StreakNudged: DomainEvent, Equatable {
    public static let eventType: EventType = "streak.nudged"
    public var streakId: String
    public var from: StreakMember
    public var toUserId: String

    public init(streakId: String, from: StreakMember, toUserId: String) {
        self.streakId = streakId
        self.from = from
        self.toUserId = toUserId
    }
}

/// `GET /v1/friends`: a friend and the streak with them, as it stands now.
public struct Friend: Codable, Sendable, Equatable {
    public var userId: String
    /// Their display name as it is now (the name they last used with streak while the copy of
    /// profiles does not know them yet).
    public var displayName: String?
    public var streak: Streak
    /// The friend as a view: avatar, username, name, with `relation.friend` set.
    public var user: PersonView?

    public init(userId: String, displayName: String?, streak: Streak, user: PersonView? = nil) {
        self.userId = userId
        self.displayName = displayName
        self.streak = streak
        self.user = user
    }
}

/// `friend_request.sent`: someone asked to be friends (alerts notifies the recipient).
public struct FriendRequestSent: DomainEvent, Equatable {
    public static let eventType: EventType = "friend_request.sent"
    public var requestId: String
    public var fromUserId: String
    public var fromDisplayName: String
    public var toUserId: String

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

    public init(requestId: String, fromUserId: String, toUserId: String, toDisplayName: String, streakId: String) {
        self.requestId = requestId
        self.fromUserId = fromUserId
        self.toUserId = toUserId
        self.toDisplayName = toDisplayName
        self.streakId = streakId
    }
}

/// Why a user's recovery-token balance moved.
public enum RecoveryTransactionType: String, Codable, Sendable, CaseIterable {
    /// One token for each 30 days of a streak (both of the pair earn it).
    case earned
    /// A bought pack (RevenueCat).
    case purchased
    /// A subscriber's three tokens for a calendar month (UTC).
    case monthly
    /// Spent on a recovery.
    case used
}

/// One move of a user's recovery-token balance.
public struct RecoveryTransaction: Codable, Sendable, Equatable {
    public var type: RecoveryTransactionType
    /// Positive for earned, purchased and monthly tokens; negative when used.
    public var amount: Int
    public var balanceAfter: Int
    /// The streak that earned or used it.
    public var streakId: String?
    public var createdAt: Date

    public init(
        type: RecoveryTransactionType, amount: Int, balanceAfter: Int, streakId: String?, createdAt: Date
    ) {
        self.type = type
        self.amount = amount
        self.balanceAfter = balanceAfter
        self.streakId = streakId
        self.createdAt = createdAt
    }
}

/// `GET /v1/recovery-tokens`: the balance and the last 20 transactions, newest first.
public struct RecoveryTokenBalance: Codable, Sendable, Equatable {
    public var balance: Int
    public var transactions: [RecoveryTransaction]

    public init(balance: Int, transactions: [RecoveryTransaction] = []) {
        self.balance = balance
        self.transactions = transactions
    }
}

/// Where a user found by friend search stands with the searcher.
public enum FriendRelation: String, Codable, Sendable, CaseIterable {
    /// Nothing yet: a friend request can be sent.
    case none
    /// Already friends (a streak, active or broken, that no unfriending or block ended).
    case friend
    /// The searcher asked them; pending (`requestId`).
    case requestSent = "request_sent"
    /// They asked the searcher; pending (`requestId`, to accept or decline).
    case requestReceived = "request_received"
}

/// One person found by `GET /v1/friends/search`.
public struct FoundUser: Codable, Sendable, Equatable {
    public var userId: String
    public var displayName: String
    public var relation: FriendRelation
    /// The pending request between the two, when there is one.
    public var requestId: String?
    /// When they picked one.
    public var username: String?
    /// The person as a view (their avatar).
    public var user: PersonView?

    public init(
        userId: String, displayName: String, relation: FriendRelation, requestId: String? = nil,
        username: String? = nil
    ) {
        self.userId = userId
        self.displayName = displayName
        self.relation = relation
        self.requestId = requestId
        self.username = username
    }
}

/// `GET /v1/friends/search?q=`: at most 20 people, never the searcher or anyone a block stands
/// between.
public struct FriendSearch: Codable, Sendable, Equatable {
    public var users: [FoundUser]

    public init(users: [FoundUser]) { self.users = users }
}
