import Foundation

/// A snap as the pair of a streak see it.
public struct StreakSnap: Codable, Sendable, Equatable {
    public var id: String
    public var userId: String
    /// Read its bytes through `GET /v1/media/{mediaId}/url` (a presigned GET) or
    /// `/v1/media/{mediaId}/content`; the partner may once it is revealed to them.
    public var mediaId: String
    /// The sender's local day it counts for.
    public var localDate: String
    public var caption: String?
    public var prompt: String?
    /// Whether it counts for the day yet: only once its media is `ready` (a video may still be
    /// processing; a rejected one is removed).
    public var counted: Bool
    public var createdAt: Date
    /// The photo as a view (size, placeholder, URLs that need no token).
    public var media: MediaView?

    public init(
        id: String, userId: String, mediaId: String, localDate: String, caption: String?, prompt: String?,
        counted: Bool, createdAt: Date
    ) {
        self.id = id
        self.userId = userId
        self.mediaId = mediaId
        self.localDate = localDate
        self.caption = caption
        self.prompt = prompt
        self.counted = counted
        self.createdAt = createdAt
    }
}

/// Where the friend's snap of a day stands for the reader (mutual reveal).
public enum FriendSnapState: String, Codable, Sendable, CaseIterable {
    /// Both snapped for the day: the friend's snap is shown.
    case revealed
    /// The friend snapped, the reader has not: snap to see it.
    case hidden
    /// The friend has not snapped yet and the day is still open.
    case waiting
    /// The friend did not snap for that (past) day.
    case missed
    /// The friend snapped but moderation hid the snap (it still counts for the streak).
    case withheld
}

/// One day of a streak: the reader's snap and the friend's, as far as the reader may see it.
public struct StreakDay: Codable, Sendable, Equatable {
    /// `YYYY-MM-DD`.
    public var date: String
    public var mine: StreakSnap?
    /// Present only when `friendState` is `revealed`.
    public var friend: StreakSnap?
    public var friendState: FriendSnapState

    public init(date: String, mine: StreakSnap?, friend: StreakSnap?, friendState: FriendSnapState) {
        self.date = date
        self.mine = mine
        self.friend = friend
        self.friendState = friendState
    }
}

/// `GET /v1/streaks/feed`: one streak with a friend and its current day (the reader's today,
/// or the pair's due day while that is still open).
public struct StreakFeedItem: Codable, Sendable, Equatable {
    public var streak: Streak
    public var today: StreakDay

    public init(streak: Streak, today: StreakDay) {
        self.streak = streak
        self.today = today
    }
}

/// A heatmap: one number per day from `from` to `to` (the reader's today), oldest first.
/// `GET /v1/streaks/{id}/calendar` gives one streak's codes: 0 nobody snapped, 1 only the
/// reader, 2 only the friend, 3 both (the day was kept), 4 the day broke the streak (and was
/// not recovered). `GET /v1/streaks/calendar` gives, per day, how many of the reader's
/// streaks they snapped into.
public struct HeatmapCalendar: Codable, Sendable, Equatable {
    public var from: String
    public var to: String
    public var days: [Int]

    public init(from: String, to: String, days: [Int]) {
        self.from = from
        self.to = to
        self.days = days
    }
}
