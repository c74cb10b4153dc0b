import Foundation
import ServiceHTTP
import ServiceStore
import Synchronization

/// A calendar day in someone's own time zone, as `YYYY-MM-DD`. Streak days are compared as
/// local days: a snap at 23:30 in Tokyo and one at 09:00 in New York can be the same day.
struct LocalDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    let year: Int
    let month: Int
    let day: Int

    /// The day `instant` falls on in `zone` (IANA rules, daylight saving included): the UTC day
    /// of the instant moved by the zone's offset at that instant, the arithmetic of
    /// ``CivilDays`` (a deadline pass asks this for every streak; a `Calendar` costs ten times as
    /// much). Before 1600, Foundation's calendar (Julian before 1582) answers.
    init(_ instant: Date, in zone: TimeZone) {
        let local = (instant.timeIntervalSince1970 + Double(zone.secondsFromGMT(for: instant))).rounded(.down)
        let day = LocalDay(ordinal: Int((local / 86_400).rounded(.down)))
        guard day.year < 1600 else {
            self = day
            return
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        self.init(year: parts.year!, month: parts.month!, day: parts.day!)
    }

    init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses `YYYY-MM-DD`.
    init?(_ text: String) {
        let parts = text.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        self.init(year: parts[0], month: parts[1], day: parts[2])
    }

    /// The day before.
    var previous: LocalDay { adding(days: -1) }

    /// The day after.
    var next: LocalDay { adding(days: 1) }

    /// The day `days` later (earlier when negative): proleptic Gregorian day numbers, no time
    /// zone involved (the deadline job steps days for every streak it moves; tested against
    /// Foundation's calendar).
    func adding(days: Int) -> LocalDay {
        LocalDay(ordinal: ordinal + days)
    }

    /// Days since 1970-01-01 (negative before).
    var ordinal: Int { CivilDays.ordinal(year: year, month: month, day: day) }

    /// The day `ordinal` days after 1970-01-01.
    init(ordinal: Int) {
        let (year, month, day) = CivilDays.date(ordinal: ordinal)
        self.init(year: year, month: month, day: day)
    }

    /// The first instant of this day in `zone`: local midnight, or the first instant after a
    /// daylight-saving gap that skips midnight (as in Santiago or Beirut). Kept once worked
    /// out: a deadline pass asks it for the same few days and zones hundreds of thousands of
    /// times (each member's day end, each at-risk time).
    func start(in zone: TimeZone) -> Date {
        let key = Start(zone: zone.identifier, ordinal: ordinal)
        if let known = Self.starts.withLock({ $0[key] }) { return known }
        let start = computedStart(in: zone)
        Self.starts.withLock { starts in
            if starts.count >= Self.startsKept { starts.removeAll(keepingCapacity: true) }
            starts[key] = start
        }
        return start
    }

    private struct Start: Hashable {
        let zone: String
        let ordinal: Int
    }

    /// The day starts worked out so far, at most `startsKept` (then forgotten at once: a pass
    /// needs a few hundred).
    private static let starts = Mutex<[Start: Date]>([:])
    private static let startsKept = 4096

    /// ``start(in:)`` from Foundation's calendar.
    func computedStart(in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let noon = calendar.date(from: DateComponents(year: year, month: month, day: day, hour: 12))!
        return calendar.startOfDay(for: noon)
    }

    /// The instant this day's local clock shows `minute` minutes after midnight in `zone`; a
    /// time a daylight-saving gap skips is moved forward by the gap.
    func at(minute: Int, in zone: TimeZone) -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let components = DateComponents(year: year, month: month, day: day, hour: minute / 60, minute: minute % 60)
        let midnight = start(in: zone)
        guard let date = calendar.date(from: components), LocalDay(date, in: zone) == self else {
            return midnight.addingTimeInterval(Double(minute) * 60)
        }
        return date
    }

    /// The instant this day ends in `zone` (the next one starts).
    func end(in zone: TimeZone) -> Date { next.start(in: zone) }

    var description: String {
        func padded(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return padded(year, 4) + "-" + padded(month, 2) + "-" + padded(day, 2)
    }

    static func < (lhs: LocalDay, rhs: LocalDay) -> Bool {
        (lhs.year, lhs.month, lhs.day) < (rhs.year, rhs.month, rhs.day)
    }

    /// The day a snap sent at `instant` from `zone` counts for, and the zone the sender's next
    /// day waits for (stored with the snap). It is the sender's day in `zone`, but no change of
    /// zones counts a day early, late or twice; after `last` (the latest day their snaps
    /// counted for, and its zone):
    /// - a zone further east gives no day that has not begun in `last`'s zone, and one so far
    ///   west that it is still before `last`'s day gives no day before it: either way the snap
    ///   counts for the day it is in `last`'s zone;
    /// - on a day both zones share, the next day waits for whichever of the two begins it
    ///   later, so that moving east never shortens a day;
    /// - once a whole day of `last`'s zone went by without a snap (a day missed anyway), the
    ///   zone the sender is in now takes over.
    /// So two days counted after one another are always those of one zone's calendar, and any
    /// three in a row span more than a real day: moving a phone's clock across the date line
    /// banks nothing.
    static func counted(
        at instant: Date, in zone: TimeZone, after last: (day: LocalDay, zone: TimeZone)?
    ) -> (day: LocalDay, zone: TimeZone) {
        let day = LocalDay(instant, in: zone)
        guard let last else { return (day, zone) }
        let limit = LocalDay(instant, in: last.zone)
        if limit >= last.day.adding(days: 2) { return (day, zone) }
        if day < last.day || day > limit { return (limit, last.zone) }
        return day.next.start(in: zone) >= day.next.start(in: last.zone) ? (day, zone) : (day, last.zone)
    }

    /// A time zone a client named, validated against the IANA database.
    static func zone(named name: String) throws -> TimeZone {
        guard name.utf8.count <= 64, name.contains("/") || name == "UTC", let zone = TimeZone(identifier: name) else {
            throw ServiceError.validation("`timeZone` must be an IANA time zone such as `Europe/Paris`.")
        }
        return zone
    }
}
