import Foundation

/// Stored times are whole milliseconds, rounded (GRDB's date text): a `Date` read back can
/// differ from the one written by under a millisecond either way. Deadlines, cooldowns and
/// rate windows compare a fresh `now` with stored times through these, so that the
/// millisecond neither withholds a due action nor adds a second to a `Retry-After`.
public enum StoredTime {
    public static let precision: TimeInterval = 0.001

    /// Whether `time` has come at `now`, within the stored precision.
    public static func reached(_ time: Date, at now: Date) -> Bool {
        now.addingTimeInterval(precision) >= time
    }

    /// Whole seconds from `now` until `time` (0 once reached), within the stored precision.
    public static func wholeSeconds(from now: Date, until time: Date) -> Int {
        max(0, Int((time.timeIntervalSince(now) - precision).rounded(.up)))
    }
}
