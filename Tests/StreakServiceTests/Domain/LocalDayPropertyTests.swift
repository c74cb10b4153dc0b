import Foundation
import PropertyBased
import Testing

@testable import StreakService

/// ``LocalDay``'s arithmetic against Foundation's calendar, which it stands in for on the
/// deadline pass: the day an instant falls on in a zone (the zone's offset at the instant, no
/// `Calendar`), and each day's first instant, kept once worked out.
@Suite struct LocalDayPropertyTests {
    /// Every zone the system knows, daylight saving, half hours and 45 minutes included.
    static let zones = TimeZone.knownTimeZoneIdentifiers.compactMap(TimeZone.init(identifier:))

    static func calendarDay(_ instant: Date, in zone: TimeZone) -> LocalDay {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.year, .month, .day], from: instant)
        return LocalDay(year: parts.year!, month: parts.month!, day: parts.day!)
    }

    @Test func theDayOfAnInstantIsTheCalendarsInEveryZone() async {
        // Instants from 1900 to 2100, to the millisecond.
        let instants = Gen.int(in: -2_208_988_800_000...4_102_444_800_000).map {
            Date(timeIntervalSince1970: Double($0) / 1000)
        }
        await propertyCheck(count: 2000, input: instants, Gen.int(in: 0...(Self.zones.count - 1))) { instant, index in
            let zone = Self.zones[index]
            #expect(LocalDay(instant, in: zone) == Self.calendarDay(instant, in: zone), "\(instant) \(zone.identifier)")
        }
    }

    @Test func theDaysAroundEveryClockChangeOfTheseYearsAreTheCalendars() {
        // The moments either side of each change of offset: where an off-by-one would show.
        for zone in Self.zones {
            var instant = Date(timeIntervalSince1970: 1_735_689_600)  // 2025-01-01
            let end = Date(timeIntervalSince1970: 1_830_297_600)  // 2028-01-01
            while let change = zone.nextDaylightSavingTimeTransition(after: instant), change < end {
                for offset in [-3601.0, -1, -0.001, 0, 0.001, 1, 3599] {
                    let moment = change.addingTimeInterval(offset)
                    #expect(
                        LocalDay(moment, in: zone) == Self.calendarDay(moment, in: zone), "\(moment) \(zone.identifier)"
                    )
                }
                instant = change
            }
        }
    }

    @Test func aDaysStartIsTheSameWhetherWorkedOutOrKept() async {
        let days = Gen.int(in: 19_000...22_000).map(LocalDay.init(ordinal:))
        await propertyCheck(count: 1000, input: days, Gen.int(in: 0...(Self.zones.count - 1))) { day, index in
            let zone = Self.zones[index]
            let computed = day.computedStart(in: zone)
            #expect(day.start(in: zone) == computed, "\(day) \(zone.identifier)")
            #expect(day.start(in: zone) == computed, "kept: \(day) \(zone.identifier)")
            #expect(LocalDay(computed, in: zone) == day)
        }
    }
}
