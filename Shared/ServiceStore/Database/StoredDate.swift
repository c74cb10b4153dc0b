import Foundation
import GRDB
import ServiceHTTP

/// A date bound as GRDB stores one (`yyyy-MM-dd HH:mm:ss.SSS`, UTC), formatted with integer
/// arithmetic instead of `DateFormatter`. The job queue and the outbox bind two dates a row,
/// a million rows a night for streak's deadline pass, where the formatter was about 6 % of the
/// CPU. The text is the same as `Date.databaseValue`'s (a property test compares them), so
/// rows written either way compare and sort alike.
public struct StoredDate: DatabaseValueConvertible, Sendable {
    public let date: Date

    public init(_ date: Date) { self.date = date }

    public var databaseValue: DatabaseValue {
        Self.text(date).map(\.databaseValue) ?? date.databaseValue
    }

    public static func fromDatabaseValue(_ dbValue: DatabaseValue) -> StoredDate? {
        Date.fromDatabaseValue(dbValue).map(StoredDate.init)
    }

    /// The text for `date`, or nil outside the years 1600…9999 (left to GRDB's formatter, whose
    /// calendar is Julian before October 1582).
    static func text(_ date: Date) -> String? {
        // As Foundation hands the instant to ICU, which rounds to the nearest millisecond.
        let milliseconds = ((date.timeIntervalSinceReferenceDate + 978_307_200) * 1000 + 0.5).rounded(.down)
        guard milliseconds.isFinite, abs(milliseconds) < 2.5e14 else { return nil }
        let total = Int(milliseconds)
        let (days, inDay) = floorDivision(total, 86_400_000)
        let (year, month, day) = CivilDays.date(ordinal: days)
        guard (1600...9999).contains(year) else { return nil }
        var bytes = [UInt8](repeating: 0, count: 23)
        func put(_ value: Int, at offset: Int, digits: Int) {
            var value = value
            for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                bytes[index] = UInt8(truncatingIfNeeded: 48 + value % 10)
                value /= 10
            }
        }
        put(year, at: 0, digits: 4)
        put(month, at: 5, digits: 2)
        put(day, at: 8, digits: 2)
        put(inDay / 3_600_000, at: 11, digits: 2)
        put(inDay / 60_000 % 60, at: 14, digits: 2)
        put(inDay / 1000 % 60, at: 17, digits: 2)
        put(inDay % 1000, at: 20, digits: 3)
        for (index, separator) in [(4, "-"), (7, "-"), (10, " "), (13, ":"), (16, ":"), (19, ".")] {
            bytes[index] = separator.utf8.first!
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func floorDivision(_ value: Int, _ divisor: Int) -> (Int, Int) {
        let quotient = value >= 0 ? value / divisor : (value - divisor + 1) / divisor
        return (quotient, value - quotient * divisor)
    }
}
