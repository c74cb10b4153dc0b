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
        return CivilDays.text(milliseconds: Int(milliseconds), separator: " ")
    }
}
