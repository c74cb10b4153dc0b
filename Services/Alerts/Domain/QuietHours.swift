import Contracts
import Foundation
import ServiceHTTP

/// A user's quiet hours: a daily window of local wall-clock time, in their own IANA zone,
/// during which pushes wait until it ends (or go without sound). A window may cross midnight
/// (22:00–07:00). Daylight saving is the zone's: a window ending at 02:30 on the night the
/// clocks skip from 02:00 to 03:00 ends at 03:00.
struct QuietHours: Sendable, Equatable {
    /// Minutes after local midnight.
    let start: Int
    let end: Int
    let zone: TimeZone
    let mode: QuietHoursMode

    /// Validates the contract's form (`HH:MM`, an IANA zone, start ≠ end).
    init(_ settings: QuietHoursSettings) throws {
        guard let start = Self.minutes(settings.start), let end = Self.minutes(settings.end) else {
            throw ServiceError.validation(
                "`quietHours.start` and `quietHours.end` are times as HH:MM (00:00 to 23:59).")
        }
        guard start != end else { throw ServiceError.validation("Quiet hours cannot start when they end.") }
        guard let zone = TimeZone(identifier: settings.timeZone),
            settings.timeZone.contains("/") || settings.timeZone == "UTC"
        else { throw ServiceError.validation("`quietHours.timeZone` is an IANA time zone such as Europe/Paris.") }
        self.init(start: start, end: end, zone: zone, mode: settings.mode ?? .hold)
    }

    init(start: Int, end: Int, zone: TimeZone, mode: QuietHoursMode) {
        self.start = start
        self.end = end
        self.zone = zone
        self.mode = mode
    }

    var settings: QuietHoursSettings {
        QuietHoursSettings(
            start: Self.text(start), end: Self.text(end), timeZone: zone.identifier, mode: mode)
    }

    /// When the window that `instant` falls in ends, or nil when `instant` is outside it.
    func end(ifQuietAt instant: Date) -> Date? {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.hour, .minute], from: instant)
        let now = parts.hour! * 60 + parts.minute!
        let inside = start < end ? (now >= start && now < end) : (now >= start || now < end)
        guard inside else { return nil }
        return calendar.nextDate(
            after: instant, matching: DateComponents(hour: end / 60, minute: end % 60, second: 0),
            matchingPolicy: .nextTime)
    }

    static func minutes(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), let hour = Int(parts[0]),
            let minute = Int(parts[1]),
            (0..<24).contains(hour), (0..<60).contains(minute)
        else { return nil }
        return hour * 60 + minute
    }

    static func text(_ minutes: Int) -> String {
        let (hour, minute) = (minutes / 60, minutes % 60)
        return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }
}
