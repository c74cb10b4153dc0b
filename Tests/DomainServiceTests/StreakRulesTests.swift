import Testing

@testable import StreakService

@Suite struct StreakRulesTests {
    static let day = LocalDay(year: 2026, month: 3, day: 1)

    @Test func aDayRightAfterTheLastCompletedOneCountsOneMore() {
        let yesterday = LocalDay(year: 2026, month: 2, day: 28)
        #expect(StreakRules.count(completing: Self.day, lastCompleted: yesterday, count: 6) == 7)
    }

    @Test func aGapStartsTheCountAgainAtOne() {
        let twoDaysBefore = LocalDay(year: 2026, month: 2, day: 27)
        #expect(StreakRules.count(completing: Self.day, lastCompleted: twoDaysBefore, count: 6) == 1)
        #expect(StreakRules.count(completing: Self.day, lastCompleted: nil, count: 0) == 1)
    }

    @Test func aDayAlreadyCountedOrEarlierChangesNothing() {
        #expect(StreakRules.count(completing: Self.day, lastCompleted: Self.day, count: 3) == nil)
        let later = LocalDay(year: 2026, month: 3, day: 2)
        #expect(StreakRules.count(completing: Self.day, lastCompleted: later, count: 3) == nil)
    }

    @Test func aStreakLapsesOnlyWhenNeitherYesterdayNorTodayCompleted() {
        let today = LocalDay(year: 2027, month: 1, day: 1)
        #expect(!StreakRules.hasLapsed(lastCompleted: today, today: today))
        #expect(!StreakRules.hasLapsed(lastCompleted: LocalDay(year: 2026, month: 12, day: 31), today: today))
        #expect(StreakRules.hasLapsed(lastCompleted: LocalDay(year: 2026, month: 12, day: 30), today: today))
        #expect(!StreakRules.hasLapsed(lastCompleted: nil, today: today))
    }
}
