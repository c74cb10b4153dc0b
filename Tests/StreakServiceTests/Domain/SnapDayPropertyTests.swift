import Foundation
import PropertyBased
import Testing

@testable import StreakService

/// StreakSnap, "when a user's local date is behind UTC's": the day a snap counts for
/// (``LocalDay/counted(at:in:after:)``) over every hour of a UTC day and zones from UTC−12 to
/// UTC+14, for senders who stay in one zone and for senders who move between zones at random.
@Suite struct SnapDayPropertyTests {
    static let zones = StreakPropertyTests.zones.map { TimeZone(identifier: $0)! }
    static let start = try! Date("2026-12-03T00:00:00Z", strategy: .iso8601)

    @Test func aSenderWhoStaysInOneZoneCountsTheirOwnDayAtEveryHour() {
        for zone in Self.zones {
            for hour in 0..<24 {
                for minute in [0, 30, 59] {
                    let now = Self.start.addingTimeInterval(TimeInterval(hour * 3600 + minute * 60))
                    let today = LocalDay(now, in: zone)
                    let first = LocalDay.counted(at: now, in: zone, after: nil)
                    #expect(first.day == today && first.zone == zone)
                    for last in [today, today.previous, today.adding(days: -5)] {
                        let counted = LocalDay.counted(at: now, in: zone, after: (last, zone))
                        #expect(counted.day == today && counted.zone == zone, "\(zone.identifier) \(hour):\(minute)")
                    }
                }
            }
        }
    }

    /// A sender's snaps, each after a random wait (a minute to two days), each from a random zone.
    static let journey = zip(
        Gen.int(in: 0...(zones.count - 1)).array(of: 2...40), Gen.int(in: 1...(48 * 60)).array(of: 40),
        Gen.int(in: 0...(24 * 60 - 1)))

    @Test func noChangeOfZonesCountsADayEarlyOrTwiceOrThreeWithinOneRealDay() async {
        await propertyCheck(count: 400, input: Self.journey) { zoneIndexes, waits, startMinute in
            var now = Self.start.addingTimeInterval(TimeInterval(startMinute * 60))
            var last: (day: LocalDay, zone: TimeZone)?
            var firstCounted: [LocalDay: Date] = [:]
            for (index, zoneIndex) in zoneIndexes.enumerated() {
                now = now.addingTimeInterval(TimeInterval(waits[index] * 60))
                let counted = LocalDay.counted(at: now, in: Self.zones[zoneIndex], after: last)
                // The day has begun (and not ended) in the zone it is counted in, ...
                #expect(LocalDay(now, in: counted.zone) == counted.day)
                if let last {
                    // ... it is never before the last one, and a new one had begun where the
                    // last was counted (unless a whole day went by there without a snap).
                    #expect(counted.day >= last.day)
                    let gap = LocalDay(now, in: last.zone) >= last.day.adding(days: 2)
                    if counted.day > last.day, !gap { #expect(now >= counted.day.start(in: last.zone)) }
                }
                if firstCounted[counted.day] == nil { firstCounted[counted.day] = now }
                last = counted
            }
            // Any three days in a row were first counted more than 23 hours apart.
            for (day, first) in firstCounted {
                guard let third = firstCounted[day.adding(days: 2)], firstCounted[day.next] != nil else { continue }
                #expect(third.timeIntervalSince(first) > 23 * 3600, "\(day): \(first) → \(third)")
            }
        }
    }
}
