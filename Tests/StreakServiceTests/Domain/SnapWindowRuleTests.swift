import Foundation
import Testing

@testable import StreakService

/// The daily window's draw and the prompt rotation, over the extreme and daylight-saving zones.
@Suite struct SnapWindowRuleTests {
    static let zones = [
        "Etc/GMT+12", "Pacific/Kiritimati", "America/New_York", "Europe/London", "America/Santiago",
        "Asia/Beirut", "Australia/Lord_Howe", "Asia/Kolkata", "UTC",
    ]
    /// Ordinary days and each zone's daylight-saving changes of 2026.
    static let days = [
        "2026-01-15", "2026-03-08", "2026-03-29", "2026-04-05", "2026-09-06", "2026-10-04", "2026-10-25",
        "2026-11-01",
    ]

    @Test func everyWindowIsTwoHoursOnItsOwnDayFromTheEarliestHourWithItsGrace() {
        var generator = SystemRandomNumberGenerator()
        for name in Self.zones {
            let zone = TimeZone(identifier: name)!
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = zone
            for text in Self.days {
                let day = LocalDay(text)!
                for earliest in [0, 2, 10, 21, 23] {
                    for random in [0, UInt64.max, generator.next(), generator.next()] {
                        let window = SnapWindowRule.draw(day: day, zone: zone, earliestHour: earliest, random: random)
                        let label = "\(name) \(text) \(earliest) \(random)"
                        #expect(window.closesAt.timeIntervalSince(window.opensAt) == 7200, "\(label)")
                        #expect(LocalDay(window.opensAt, in: zone) == day, "\(label)")
                        // With the grace, it still ends on its day.
                        #expect(
                            window.closesAt.addingTimeInterval(SnapWindowRule.grace) <= day.end(in: zone), "\(label)")
                        // Never before the earliest hour (a daylight-saving gap only moves it later).
                        let parts = calendar.dateComponents([.hour, .minute], from: window.opensAt)
                        let minute = parts.hour! * 60 + parts.minute!
                        #expect(minute >= min(earliest * 60, SnapWindowRule.latestStartMinute), "\(label)")
                        #expect(window.accepts(window.opensAt.addingTimeInterval(-1800)), "\(label)")
                        #expect(!window.accepts(window.opensAt.addingTimeInterval(-1801)), "\(label)")
                        #expect(window.accepts(window.closesAt.addingTimeInterval(1799)), "\(label)")
                        #expect(!window.accepts(window.closesAt.addingTimeInterval(1800)), "\(label)")
                    }
                }
            }
        }
    }

    @Test func theDrawSpreadsOverTheWholeRange() {
        let day = LocalDay("2026-06-01")!
        let utc = TimeZone(identifier: "UTC")!
        let starts = Set(
            (0..<3000).map { _ in
                SnapWindowRule.draw(day: day, zone: utc, earliestHour: 20, random: UInt64.random(in: 0...UInt64.max))
                    .opensAt
            })
        // 20:00 to 21:30 is 91 possible minutes; 3,000 draws reach nearly all of them.
        #expect(starts.count > 85)
        #expect(starts.min() == day.at(minute: 20 * 60, in: utc))
        #expect(starts.max() == day.at(minute: SnapWindowRule.latestStartMinute, in: utc))
    }

    @Test func aStartInADaylightSavingGapMovesForwardByTheGap() {
        // New York skips 02:00–03:00 on 2026-03-08: 02:30 is 03:30 EDT (07:30 UTC).
        let zone = TimeZone(identifier: "America/New_York")!
        let opens = LocalDay("2026-03-08")!.at(minute: 150, in: zone)
        #expect(opens == (try! Date("2026-03-08T07:30:00Z", strategy: .iso8601)))
    }

    @Test func thePromptsRotateOnePerDayWithoutRepeatingACategoryTwiceInARow() {
        let book = PromptBook.builtIn
        #expect(book.prompts.count == 102)
        #expect(Set(book.prompts.map(\.text)).count == 102)
        var day = LocalDay("2026-01-01")!
        var previous = book.prompt(for: day.previous)
        var seen: Set<String> = []
        for _ in 0..<102 {
            let prompt = book.prompt(for: day)
            #expect(prompt.category != previous.category)
            seen.insert(prompt.text)
            previous = prompt
            day = day.next
        }
        #expect(seen.count == 102)
        #expect(book.prompt(for: day) == book.prompt(for: LocalDay("2026-01-01")!))
        // Before 1970 too.
        #expect(book.prompt(for: LocalDay("1969-12-31")!) == book.prompts.last)
    }
}
