import Contracts
import Foundation
import GRDB
import ServiceKit

/// A row of `quiet_hours`: one user's quiet hours (no row: none).
struct QuietHoursRecord: ServiceRecord {
    static let databaseTableName = "quiet_hours"

    var userId: String
    /// Minutes after local midnight.
    var startMinute: Int
    var endMinute: Int
    /// IANA time zone.
    var timeZone: String
    var mode: QuietHoursMode
    var updatedAt: Date

    var rule: QuietHours? {
        TimeZone(identifier: timeZone).map { QuietHours(start: startMinute, end: endMinute, zone: $0, mode: mode) }
    }
}

extension QuietHoursMode: DatabaseValueConvertible {}
