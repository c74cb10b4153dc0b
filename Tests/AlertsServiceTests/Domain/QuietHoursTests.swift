import Contracts
import Foundation
import Testing

@testable import AlertsService

@Suite struct QuietHoursTests {
    static let paris = TimeZone(identifier: "Europe/Paris")!

    /// An instant given as Paris wall-clock time with its UTC offset, so tests around a DST
    /// change name exactly the instant they mean.
    static func instant(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)!
    }

    func rule(_ start: String, _ end: String, zone: String = "Europe/Paris") throws -> QuietHours {
        try QuietHours(QuietHoursSettings(start: start, end: end, timeZone: zone))
    }

    @Test func aWindowAcrossMidnightHoldsUntilItsEndTheNextMorning() throws {
        let night = try rule("22:00", "07:00")
        #expect(night.end(ifQuietAt: Self.instant("2026-06-10T21:59:00+02:00")) == nil)
        #expect(
            night.end(ifQuietAt: Self.instant("2026-06-10T22:00:00+02:00")) == Self.instant("2026-06-11T07:00:00+02:00")
        )
        #expect(
            night.end(ifQuietAt: Self.instant("2026-06-11T03:00:00+02:00")) == Self.instant("2026-06-11T07:00:00+02:00")
        )
        #expect(night.end(ifQuietAt: Self.instant("2026-06-11T07:00:00+02:00")) == nil)
        // The same instant is another wall-clock time elsewhere: in New York it is 16:00.
        let newYork = try rule("22:00", "07:00", zone: "America/New_York")
        #expect(newYork.end(ifQuietAt: Self.instant("2026-06-10T22:00:00+02:00")) == nil)
    }

    @Test func aDaytimeWindowHoldsOnlyWithinItself() throws {
        let lessons = try rule("09:00", "12:30")
        #expect(lessons.end(ifQuietAt: Self.instant("2026-06-10T08:59:59+02:00")) == nil)
        #expect(
            lessons.end(ifQuietAt: Self.instant("2026-06-10T10:00:00+02:00"))
                == Self.instant("2026-06-10T12:30:00+02:00"))
        #expect(lessons.end(ifQuietAt: Self.instant("2026-06-10T12:30:00+02:00")) == nil)
    }

    @Test func theNightTheClocksGoForwardTheWindowIsAnHourShorter() throws {
        // 2026-03-29 in Paris: 02:00 CET becomes 03:00 CEST.
        let night = try rule("22:00", "07:00")
        let evening = Self.instant("2026-03-28T23:00:00+01:00")
        let end = try #require(night.end(ifQuietAt: evening))
        #expect(end == Self.instant("2026-03-29T07:00:00+02:00"))
        #expect(end.timeIntervalSince(evening) == 7 * 3600)
        // A window ending inside the skipped hour ends when the clocks land, at 03:00.
        let early = try rule("01:00", "02:30")
        #expect(
            early.end(ifQuietAt: Self.instant("2026-03-29T01:45:00+01:00")) == Self.instant("2026-03-29T03:00:00+02:00")
        )
        // After the jump it is 03:00 or later: outside that window.
        #expect(early.end(ifQuietAt: Self.instant("2026-03-29T03:10:00+02:00")) == nil)
    }

    @Test func theNightTheClocksGoBackTheWindowIsAnHourLonger() throws {
        // 2026-10-25 in Paris: 03:00 CEST becomes 02:00 CET.
        let night = try rule("22:00", "07:00")
        let evening = Self.instant("2026-10-24T23:00:00+02:00")
        let end = try #require(night.end(ifQuietAt: evening))
        #expect(end == Self.instant("2026-10-25T07:00:00+01:00"))
        #expect(end.timeIntervalSince(evening) == 9 * 3600)
        // Both passes through 02:15 are inside a window ending at 02:30 on its own pass.
        let early = try rule("01:00", "02:30")
        #expect(
            early.end(ifQuietAt: Self.instant("2026-10-25T02:15:00+02:00")) == Self.instant("2026-10-25T02:30:00+02:00")
        )
        #expect(
            early.end(ifQuietAt: Self.instant("2026-10-25T02:15:00+01:00")) == Self.instant("2026-10-25T02:30:00+01:00")
        )
    }

    @Test func everyInstantOfAYearIsQuietExactlyWhenItsWallClockIsInTheWindow() throws {
        // Every two hours and a few minutes through 2026 in Paris, both DST changes included: the end
        // is always later, within a day and an hour, at the window's end on the wall clock
        // (or where the clocks landed), and the minute before it is still quiet.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = Self.paris
        for (start, end) in [("22:00", "07:00"), ("01:00", "02:30"), ("13:15", "13:45")] {
            let window = try rule(start, end)
            var instant = Self.instant("2026-01-01T00:07:00+01:00")
            while instant < Self.instant("2027-01-01T00:00:00+01:00") {
                let parts = calendar.dateComponents([.hour, .minute], from: instant)
                let now = parts.hour! * 60 + parts.minute!
                let inside =
                    window.start < window.end
                    ? (window.start..<window.end).contains(now) : (now >= window.start || now < window.end)
                let ends = window.end(ifQuietAt: instant)
                #expect((ends != nil) == inside, "\(start)–\(end) at \(instant)")
                if let ends {
                    #expect(ends > instant && ends.timeIntervalSince(instant) <= 25 * 3600)
                    let landed = calendar.dateComponents([.hour, .minute], from: ends)
                    let wall = landed.hour! * 60 + landed.minute!
                    #expect(wall == window.end || (wall == 180 && window.end / 60 == 2), "\(ends)")
                    #expect(window.end(ifQuietAt: ends.addingTimeInterval(-60)) != nil)
                }
                instant = instant.addingTimeInterval(2 * 3600 + 7 * 60)
            }
        }
    }

    @Test(arguments: [
        QuietHoursSettings(start: "22:00", end: "22:00", timeZone: "Europe/Paris"),
        QuietHoursSettings(start: "24:00", end: "07:00", timeZone: "Europe/Paris"),
        QuietHoursSettings(start: "7:00", end: "09:00", timeZone: "Europe/Paris"),
        QuietHoursSettings(start: "22:00", end: "07:60", timeZone: "Europe/Paris"),
        QuietHoursSettings(start: "22:00", end: "07:00", timeZone: "Mars/Olympus"),
        QuietHoursSettings(start: "22:00", end: "07:00", timeZone: "CEST"),
        QuietHoursSettings(start: "22:00", end: "07:00", timeZone: ""),
    ])
    func malformedSettingsAreRefused(_ settings: QuietHoursSettings) {
        #expect(throws: (any Error).self) { try QuietHours(settings) }
    }
}
