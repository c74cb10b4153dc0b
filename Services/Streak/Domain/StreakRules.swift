/// How a streak counts days. Both friends must snap on the same local day (each in their
/// own zone) for the day to count.
enum StreakRules {
    /// The count after both friends snapped on `day`: one more when the last day they both
    /// completed was the day before, 1 otherwise (the streak starts again). Nil when `day` is
    /// not after the last completed day: that day already counted.
    static func count(completing day: LocalDay, lastCompleted: LocalDay?, count: Int) -> Int? {
        guard lastCompleted.map({ $0 < day }) ?? true else { return nil }
        return lastCompleted == day.previous ? count + 1 : 1
    }

    /// Whether a streak has lapsed by `today` (the reader's local day): its last completed
    /// day is before yesterday, so today's snaps can no longer continue it.
    static func hasLapsed(lastCompleted: LocalDay?, today: LocalDay) -> Bool {
        lastCompleted.map { $0 < today.previous } ?? false
    }
}
