import Foundation

extension Date {
    /// The date to the minute in UTC, as people read it in a notification or on a page:
    /// `2026-11-29 10:00 UTC`.
    public var utcMinute: String {
        formatted(
            Date.VerbatimFormatStyle(
                format:
                    "\(year: .defaultDigits)-\(month: .twoDigits)-\(day: .twoDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits) UTC",
                timeZone: TimeZone(identifier: "UTC")!, calendar: Calendar(identifier: .gregorian)))
    }
}
