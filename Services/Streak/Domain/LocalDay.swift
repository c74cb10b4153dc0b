import Foundation
import ServiceKit

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

    /// The day before (calendar arithmetic in UTC, where every day has 24 hours).
    var previous: LocalDay {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let date = calendar.date(from: DateComponents(year: year, month: month, day: day))!
        return LocalDay(calendar.date(byAdding: .day, value: -1, to: date)!, in: calendar.timeZone)
    }

    var description: String {
        String(format: "%04d-%02d-%02d", year, month, day)
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
