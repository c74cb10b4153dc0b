import Foundation
import ServiceHTTP
import ServiceStore

/// A calendar day in someone's own time zone, as `YYYY-MM-DD`. Streak days are compared as
/// local days: a snap at 23:30 in Tokyo and one at 09:00 in New York can be the same day.
struct LocalDay: Sendable, Hashable, Comparable, CustomStringConvertible {
    let year: Int
    let month: Int
    let day: Int

    /// The day `instant` falls on in `zone` (IANA rules, daylight saving included).
    init(_ instant: Date, in zone: TimeZone) {
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
    /// daylight-saving gap that skips midnight (as in Santiago or Beirut).
    func start(in zone: TimeZone) -> Date {
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

    /// A time zone a client named, validated against the IANA database.
    static func zone(named name: String) throws -> TimeZone {
        guard name.utf8.count <= 64, name.contains("/") || name == "UTC", let zone = TimeZone(identifier: name) else {
            throw ServiceError.validation("`timeZone` must be an IANA time zone such as `Europe/Paris`.")
        }
        return zone
    }
}
