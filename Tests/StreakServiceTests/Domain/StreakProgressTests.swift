import Contracts
import Foundation
import Testing

@testable import StreakService

@Suite struct StreakProgressTests {
    static let (a, b) = ("user-a", "user-b")
    static func zone(_ name: String) -> TimeZone { TimeZone(identifier: name)! }
    static func day(_ text: String) -> LocalDay { LocalDay(text)! }
    static func instant(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    static func pair(_ zoneA: String, _ zoneB: String) -> StreakPair {
        StreakPair(members: [a, b], zones: [a: zone(zoneA), b: zone(zoneB)])
    }

    /// A streak kept through `lastKept` with `count` days.
    static func kept(_ count: Int, through lastKept: String) -> StreakProgress {
        StreakProgress(
            status: .active, count: count, longest: count, lastKept: day(lastKept), lastBreak: nil,
            recoveryUsed: false, warned: nil, ended: false)
    }

    // MARK: - Days

    @Test func dayArithmeticAgreesWithFoundationsCalendarAcrossCenturies() {
        var utc = Calendar(identifier: .gregorian)
        utc.timeZone = TimeZone(identifier: "UTC")!
        // Every day from 1899 to 2101 (leap rules for 1900, 2000 and 2100 included), each one
        // checked as text, as a count of days since 1970, and one step either way.
        let start = utc.date(from: DateComponents(year: 1899, month: 1, day: 1))!
        for offset in 0..<(203 * 366) {
            let date = utc.date(byAdding: .day, value: offset, to: start)!
            let parts = utc.dateComponents([.year, .month, .day], from: date)
            guard parts.year! <= 2101 else { break }
            let day = LocalDay(date, in: utc.timeZone)
            let text = String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
            #expect(day.description == text)
            #expect(day.ordinal == Int((date.timeIntervalSince1970 / 86_400).rounded(.down)), "\(text)")
            #expect(LocalDay(ordinal: day.ordinal) == day, "\(text)")
            #expect(day.next == LocalDay(utc.date(byAdding: .day, value: 1, to: date)!, in: utc.timeZone), "\(text)")
            #expect(day.adding(days: -1) == LocalDay(date.addingTimeInterval(-86_400), in: utc.timeZone), "\(text)")
        }
        #expect(Self.day("2026-03-01").adding(days: -366) == Self.day("2025-02-28"))
        #expect(Self.day("2024-02-28").adding(days: 1) == Self.day("2024-02-29"))
    }

    @Test func aDayStartsAtLocalMidnightEvenAcrossDaylightSavingAndTheExtremeZones() {
        let zones = [
            "Etc/GMT+12", "Pacific/Kiritimati", "America/New_York", "Europe/London", "America/Santiago",
            "Asia/Beirut", "Australia/Lord_Howe", "Asia/Kolkata",
        ]
        // Around the 2026 daylight-saving changes of both hemispheres.
        let days = ["2026-03-08", "2026-03-29", "2026-04-05", "2026-09-06", "2026-10-25", "2026-11-01"]
        for name in zones {
            for text in days {
                let day = Self.day(text)
                let start = day.start(in: Self.zone(name))
                #expect(LocalDay(start, in: Self.zone(name)) == day, "\(name) \(text)")
                #expect(LocalDay(start.addingTimeInterval(-1), in: Self.zone(name)) == day.previous, "\(name) \(text)")
                let hours = day.end(in: Self.zone(name)).timeIntervalSince(start) / 3600
                #expect([23, 23.5, 24, 24.5, 25].contains(hours), "\(name) \(text): \(hours) h")
            }
        }
        // New York's spring-forward day has 23 hours.
        #expect(Self.day("2026-03-08").end(in: Self.zone("America/New_York")) == Self.instant("2026-03-09T04:00:00Z"))
    }

    @Test func aPairsDayClosesWhenItEndsInTheLaterZoneAndIsAtRiskTwoHoursBeforeTheEarlierEnds() {
        // UTC+14 and UTC−12: the same date ends 26 hours apart.
        let pair = Self.pair("Pacific/Kiritimati", "Etc/GMT+12")
        let day = Self.day("2026-06-10")
        #expect(pair.closes(day) == Self.instant("2026-06-11T12:00:00Z"))
        #expect(pair.atRisk(day) == Self.instant("2026-06-10T08:00:00Z"))
    }

    // MARK: - Settling

    @Test func aDueDayThatClosesIncompleteWarnsOnceThenBreaksOnce() {
        let pair = Self.pair("Europe/Paris", "Europe/Paris")
        var progress = Self.kept(4, through: "2026-06-09")
        let snaps: (LocalDay) -> Set<String> = { $0 == Self.day("2026-06-10") ? [Self.a] : [] }
        #expect(progress.settle(at: Self.instant("2026-06-10T19:59:00Z"), pair: pair, snapped: snaps).isEmpty)
        #expect(progress.nextCheck(pair: pair) == Self.instant("2026-06-10T20:00:00Z"))
        let warning = progress.settle(at: Self.instant("2026-06-10T20:00:00Z"), pair: pair, snapped: snaps)
        #expect(
            warning == [
                .atRisk(Self.day("2026-06-10"), closesAt: Self.instant("2026-06-10T22:00:00Z"), waitingFor: [Self.b])
            ])
        #expect(progress.settle(at: Self.instant("2026-06-10T21:00:00Z"), pair: pair, snapped: snaps).isEmpty)
        #expect(progress.nextCheck(pair: pair) == Self.instant("2026-06-10T22:00:00Z"))
        let broken = progress.settle(at: Self.instant("2026-06-10T22:00:00Z"), pair: pair, snapped: snaps)
        let missed = StreakProgress.Break(day: Self.day("2026-06-10"), count: 4, missedBy: [Self.b])
        #expect(broken == [.broken(missed, recoverableUntil: Self.instant("2026-06-11T22:00:00Z"))])
        #expect(progress.status == .broken && progress.count == 0 && progress.longest == 4)
        #expect(progress.nextCheck(pair: pair) == nil)
        // Days later, nothing more happens: a broken streak breaks once.
        #expect(progress.settle(at: Self.instant("2026-06-20T00:00:00Z"), pair: pair, snapped: snaps).isEmpty)
    }

    @Test func aLateJobKeepsTheDaysBothSnappedBeforeBreakingOnTheFirstMissedOne() {
        let pair = Self.pair("Asia/Tokyo", "America/Los_Angeles")
        var progress = Self.kept(1, through: "2026-06-01")
        let complete: Set<LocalDay> = [Self.day("2026-06-02"), Self.day("2026-06-03")]
        let effects = progress.settle(at: Self.instant("2026-06-09T00:00:00Z"), pair: pair) {
            complete.contains($0) ? [Self.a, Self.b] : []
        }
        #expect(effects.count == 3)
        #expect(
            effects.last
                == .broken(
                    StreakProgress.Break(day: Self.day("2026-06-04"), count: 3, missedBy: [Self.a, Self.b]),
                    recoverableUntil: nil))
    }

    @Test func aNewPairOrABrokenStreakStartsAtOneAndAnEarlierDayCountsNothing() {
        var progress = StreakProgress(
            status: .active, count: 0, longest: 0, lastKept: nil, lastBreak: nil, recoveryUsed: false, warned: nil,
            ended: false)
        #expect(progress.keep(Self.day("2026-06-01")) == [.kept(Self.day("2026-06-01"), count: 1)])
        #expect(progress.keep(Self.day("2026-06-01")).isEmpty)
        #expect(progress.keep(Self.day("2026-06-02")) == [.kept(Self.day("2026-06-02"), count: 2)])
        // Only the due day counts while one is due.
        #expect(progress.keep(Self.day("2026-06-04")).isEmpty)
        progress.status = .broken
        progress.count = 0
        progress.lastBreak = StreakProgress.Break(day: Self.day("2026-06-03"), count: 2, missedBy: [Self.a])
        #expect(progress.keep(Self.day("2026-06-03")).isEmpty)
        #expect(progress.keep(Self.day("2026-06-05")) == [.kept(Self.day("2026-06-05"), count: 1)])
        #expect(progress.longest == 2)
    }

    // MARK: - Recovery

    @Test func aRecoveryRestoresTheCountOnceAndOnlyUntilTheNextDayCloses() throws {
        let pair = Self.pair("UTC", "UTC")
        var progress = Self.kept(9, through: "2026-06-09")
        let none: (LocalDay) -> Set<String> = { _ in [] }
        _ = progress.settle(at: Self.instant("2026-06-11T00:00:00Z"), pair: pair, snapped: none)
        #expect(progress.status == .broken)
        var late = progress
        #expect(throws: StreakProgress.RecoveryRefusal.windowClosed) {
            try late.recover(at: Self.instant("2026-06-12T00:00:00Z"), pair: pair, snapped: none)
        }
        let restored = try progress.recover(at: Self.instant("2026-06-11T23:59:59Z"), pair: pair, snapped: none)
        #expect(restored.first == .recovered(count: 9))
        #expect(progress.status == .active && progress.count == 9 && progress.dueDay == Self.day("2026-06-11"))
        #expect(throws: StreakProgress.RecoveryRefusal.alreadyUsed) {
            try progress.recover(at: Self.instant("2026-06-11T23:59:59Z"), pair: pair, snapped: none)
        }
    }

    @Test func aRecoveryAfterBothSnappedAgainJoinsTheTwoRuns() throws {
        let pair = Self.pair("UTC", "UTC")
        var progress = Self.kept(9, through: "2026-06-09")
        _ = progress.settle(at: Self.instant("2026-06-11T12:00:00Z"), pair: pair) { _ in [] }
        #expect(progress.keep(Self.day("2026-06-11")) == [.kept(Self.day("2026-06-11"), count: 1)])
        let both: (LocalDay) -> Set<String> = { $0 == Self.day("2026-06-11") ? [Self.a, Self.b] : [] }
        _ = try progress.recover(at: Self.instant("2026-06-11T13:00:00Z"), pair: pair, snapped: both)
        #expect(progress.count == 10 && progress.longest == 10 && progress.dueDay == Self.day("2026-06-12"))
    }

    @Test func aStreakEndedByABlockCannotBeRecoveredOrRestarted() {
        var progress = Self.kept(3, through: "2026-06-09")
        progress.status = .broken
        progress.ended = true
        #expect(progress.keep(Self.day("2026-06-10")).isEmpty)
        #expect(progress.dueDay == nil)
        #expect(throws: StreakProgress.RecoveryRefusal.notBroken) {
            try progress.recover(at: Self.instant("2026-06-10T00:00:00Z"), pair: Self.pair("UTC", "UTC")) { _ in [] }
        }
    }

    @Test func aSuspensionBreaksAtOnceForGoodButTheTwoCanStartAgain() throws {
        let pair = Self.pair("UTC", "UTC")
        var progress = Self.kept(5, through: "2026-06-09")
        let none: (LocalDay) -> Set<String> = { _ in [] }
        // Suspended on the 10th, the due day: the five days are lost at once, with no recovery.
        let effects = progress.forfeit(.suspended, by: Self.a, on: Self.day("2026-06-10"))
        #expect(
            effects == [
                .broken(
                    StreakProgress.Break(day: Self.day("2026-06-10"), count: 5, missedBy: [Self.a]),
                    recoverableUntil: nil)
            ])
        #expect(progress.status == .broken && progress.count == 0 && progress.dueDay == nil)
        #expect(progress.recoverableUntil(pair: pair) == nil)
        #expect(throws: StreakProgress.RecoveryRefusal.notBroken) {
            try progress.recover(at: Self.instant("2026-06-10T12:00:00Z"), pair: pair, snapped: none)
        }
        #expect(progress.forfeit(.banned, by: Self.b, on: Self.day("2026-06-10")).isEmpty)
        // Once both snap again, a new count starts; a day missed later is recoverable as ever.
        #expect(progress.keep(Self.day("2026-06-20")) == [.kept(Self.day("2026-06-20"), count: 1)])
        #expect(progress.keep(Self.day("2026-06-21")) == [.kept(Self.day("2026-06-21"), count: 2)])
        _ = progress.settle(at: Self.instant("2026-06-23T00:00:00Z"), pair: pair, snapped: none)
        #expect(progress.status == .broken && progress.forfeit == nil)
        #expect(progress.recoverableUntil(pair: pair) == Self.instant("2026-06-24T00:00:00Z"))
        #expect(progress.longest == 5)
        // A pair with nothing to lose has nothing to break.
        var fresh = Self.kept(0, through: "2026-06-09")
        #expect(fresh.forfeit(.suspended, by: Self.a, on: Self.day("2026-06-10")).isEmpty)
    }
}
