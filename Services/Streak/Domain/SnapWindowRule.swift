import Foundation

/// The daily snap window: two hours a day, drawn at random once per user and local
/// day, starting no earlier than the user's earliest hour (the seed's `NotificationWindowStart`)
/// and no later than 21:30, so that with its grace it ends on the same day. Snaps are accepted
/// from 30 minutes before it opens until 30 minutes after it closes.
struct SnapWindowRule: Sendable, Equatable {
    static let length: TimeInterval = 2 * 3600
    static let grace: TimeInterval = 30 * 60
    /// The window-closing reminder goes out this long before the close.
    static let closingLead: TimeInterval = 30 * 60
    static let defaultEarliestHour = 10
    /// The latest start, in minutes after local midnight.
    static let latestStartMinute = 21 * 60 + 30

    var opensAt: Date
    var closesAt: Date

    /// The window of `day` in `zone` for someone whose earliest hour is `earliestHour`, placed
    /// by `random` (any value: it picks the start minute uniformly in the allowed range). A
    /// start that falls in a daylight-saving gap moves forward with the clock.
    static func draw(day: LocalDay, zone: TimeZone, earliestHour: Int, random: UInt64) -> SnapWindowRule {
        let first = min(max(earliestHour, 0) * 60, latestStartMinute)
        let minute = first + Int(random % UInt64(latestStartMinute - first + 1))
        let opens = day.at(minute: minute, in: zone)
        return SnapWindowRule(opensAt: opens, closesAt: opens.addingTimeInterval(length))
    }

    /// Whether a snap at `instant` is in the window or its grace.
    func accepts(_ instant: Date) -> Bool {
        instant >= opensAt.addingTimeInterval(-Self.grace) && instant < closesAt.addingTimeInterval(Self.grace)
    }

    func isOpen(at instant: Date) -> Bool { instant >= opensAt && instant < closesAt }

    var closingReminder: Date { closesAt.addingTimeInterval(-Self.closingLead) }
}
