import Foundation

/// `GET /v1/snaps/window`: the reader's snap window for their local day. Drawn once per user
/// and day (a random two hours starting no earlier than `earliestHour`), then fixed.
public struct SnapWindow: Codable, Sendable, Equatable {
    /// The local day, `YYYY-MM-DD`.
    public var date: String
    public var timeZone: String
    public var opensAt: Date
    public var closesAt: Date
    /// Snaps are accepted this long before it opens and after it closes.
    public var graceMinutes: Int
    /// Whether a snap sent now is accepted (always, when the operator turned windows off).
    public var acceptingSnaps: Bool
    /// Whether the window is open now (without the grace).
    public var open: Bool
    /// False when the operator turned windows off: snaps are accepted all day.
    public var enforced: Bool
    /// The user's earliest hour (0–23, the seed's `NotificationWindowStart`).
    public var earliestHour: Int

    enum CodingKeys: String, CodingKey {
        case date, timeZone, opensAt, closesAt, graceMinutes, acceptingSnaps, open, enforced, earliestHour
    }

    public init(
        date: String, timeZone: String, opensAt: Date, closesAt: Date, graceMinutes: Int, acceptingSnaps: Bool,
        open: Bool, enforced: Bool, earliestHour: Int
    ) {
        self.date = date
        self.timeZone = timeZone
        self.opensAt = opensAt
        self.closesAt = closesAt
        self.graceMinutes = graceMinutes
        self.acceptingSnaps = acceptingSnaps
        self.open = open
        self.enforced = enforced
        self.earliestHour = earliestHour
    }
}

/// `PUT /v1/snaps/window`: when the user's days are and where their window may start. A day's
/// window already drawn stays as drawn; the next ones follow the new settings.
public struct SnapWindowSettings: Codable, Sendable, Equatable {
    /// 0–23 (default 10).
    public var earliestHour: Int
    /// An IANA zone; leave it out to keep the one streak knows (that of the latest snap).
    public var timeZone: String?

    public init(earliestHour: Int, timeZone: String? = nil) {
        self.earliestHour = earliestHour
        self.timeZone = timeZone
    }
}

/// `GET /v1/prompts/today`: the prompt of the reader's local day.
public struct DailyPrompt: Codable, Sendable, Equatable {
    /// `YYYY-MM-DD`.
    public var date: String
    public var text: String
    /// `food`, `color`, `view`, `mood`, `object`, `activity`, or `custom`.
    public var category: String
    public var emoji: String
    /// A Pro user's own prompt for the day, instead of the operator's.
    public var custom: Bool

    public init(date: String, text: String, category: String, emoji: String, custom: Bool) {
        self.date = date
        self.text = text
        self.category = category
        self.emoji = emoji
        self.custom = custom
    }
}

/// `PUT /v1/prompts/custom/{date}` (Pro): the user's own prompt for one of their local days.
public struct CustomPromptSet: Codable, Sendable, Equatable {
    /// At most 100 characters.
    public var text: String
    /// At most 10 characters (default 📸).
    public var emoji: String?

    public init(text: String, emoji: String? = nil) {
        self.text = text
        self.emoji = emoji
    }
}

/// One milestone a streak reached.
public struct ReachedMilestone: Codable, Sendable, Equatable {
    /// 7, 14, 30, 50, 100, 200 or 365.
    public var count: Int
    /// The local day that made it, `YYYY-MM-DD`.
    public var date: String
    public var reachedAt: Date

    public init(count: Int, date: String, reachedAt: Date) {
        self.count = count
        self.date = date
        self.reachedAt = reachedAt
    }
}

/// `GET /v1/streaks/{id}/milestone-data`: what a share card shows.
public struct MilestoneData: Codable, Sendable, Equatable {
    public var streakId: String
    public var count: Int
    public var longestCount: Int
    /// The first day of the current run, `YYYY-MM-DD` (nil at 0).
    public var startedOn: String?
    /// Both of the pair, the reader first.
    public var members: [StreakMember]
    /// Newest first.
    public var reached: [ReachedMilestone]
    /// The next milestone and the days still to keep for it (nil past 365).
    public var next: Int?
    public var daysToNext: Int?

    enum CodingKeys: String, CodingKey {
        case streakId, count, longestCount, startedOn, members, reached, next, daysToNext
    }

    public init(
        streakId: String, count: Int, longestCount: Int, startedOn: String?, members: [StreakMember],
        reached: [ReachedMilestone], next: Int?, daysToNext: Int?
    ) {
        self.streakId = streakId
        self.count = count
        self.longestCount = longestCount
        self.startedOn = startedOn
        self.members = members
        self.reached = reached
        self.next = next
        self.daysToNext = daysToNext
    }
}

/// One of the streak achievements and whether the reader has it.
public struct Achievement: Codable, Sendable, Equatable {
    /// `7_day_warrior`, `30_day_legend`, `100_day_immortal`, `first_recovery`, `prompt_master`.
    public var id: String
    public var title: String
    public var unlocked: Bool
    /// Progress towards it, `progress` of `goal`.
    public var progress: Int
    public var goal: Int

    public init(id: String, title: String, unlocked: Bool, progress: Int, goal: Int) {
        self.id = id
        self.title = title
        self.unlocked = unlocked
        self.progress = progress
        self.goal = goal
    }
}

/// `GET /v1/streaks/stats`: the profile screen's numbers.
public struct StreakStats: Codable, Sendable, Equatable {
    public var activeStreaks: Int
    /// The longest count any of the reader's streaks ever reached.
    public var longestStreak: Int
    /// Snaps the reader sent (one per photo, however many streaks it went into).
    public var totalSnaps: Int
    public var recoveryTokens: Int
    public var achievements: [Achievement]

    public init(
        activeStreaks: Int, longestStreak: Int, totalSnaps: Int, recoveryTokens: Int, achievements: [Achievement]
    ) {
        self.activeStreaks = activeStreaks
        self.longestStreak = longestStreak
        self.totalSnaps = totalSnaps
        self.recoveryTokens = recoveryTokens
        self.achievements = achievements
    }
}

/// The streak numbers a public profile shows (the stats cards), as streak answers
/// auth at each read (`GET /internal/streak-stats/{id}`): never the user's tokens or
/// achievements.
public struct StreakProfileStats: Codable, Sendable, Equatable {
    public var activeStreaks: Int
    public var longestStreak: Int
    public var totalSnaps: Int

    public init(activeStreaks: Int, longestStreak: Int, totalSnaps: Int) {
        self.activeStreaks = activeStreaks
        self.longestStreak = longestStreak
        self.totalSnaps = totalSnaps
    }
}

/// `streak.window_opened` (streak → alerts): a user's snap window opened (`daily_window`).
public struct StreakWindowOpened: DomainEvent, Equatable {
    public static let eventType: EventType = "streak.window_opened"
    public var userId: String
    /// The local day, `YYYY-MM-DD`.
    public var date: String
    public var closesAt: Date
    /// The day's prompt text.
    public var prompt: String
    /// Who is waiting: a friend's name, or "N friends".
    public var partner: String

    public init(userId: String, date: String, closesAt: Date, prompt: String, partner: String) {
        self.userId = userId
        self.date = date
        self.closesAt = closesAt
        self.prompt = prompt
        self.partner = partner
    }
}

/// `streak.window_closing` (streak → alerts): 30 minutes before a user's window closes, they
/// have not snapped today (`window_closing`).
public struct StreakWindowClosing: DomainEvent, Equatable {
    public static let eventType: EventType = "streak.window_closing"
    public var userId: String
    public var date: String
    public var closesAt: Date

    public init(userId: String, date: String, closesAt: Date) {
        self.userId = userId
        self.date = date
        self.closesAt = closesAt
    }
}

/// `streak.milestone` (streak → alerts): a streak reached 7, 14, 30, 50, 100, 200 or 365 days
/// (`streak_milestone`, to both).
public struct StreakMilestoneReached: DomainEvent, Equatable {
    public static let eventType: EventType = "streak.milestone"
    public var streakId: String
    public var count: Int
    public var date: String
    public var members: [StreakMember]
    /// Each of the pair earned a recovery token with it (every 30 days).
    public var earnedToken: Bool

    public init(streakId: String, count: Int, date: String, members: [StreakMember], earnedToken: Bool) {
        self.streakId = streakId
        self.count = count
        self.date = date
        self.members = members
        self.earnedToken = earnedToken
    }
}
