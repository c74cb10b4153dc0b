import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

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

extension QuietHoursRecord {
    /// Read by hand rather than through `Decodable`: every push reads its user's quiet hours.
    init(row: Row) throws {
        userId = try row.decode(forColumn: "user_id")
        startMinute = try row.decode(forColumn: "start_minute")
        endMinute = try row.decode(forColumn: "end_minute")
        timeZone = try row.decode(forColumn: "time_zone")
        mode = try row.decode(forColumn: "mode")
        updatedAt = try row.decode(forColumn: "updated_at")
    }
}

extension QuietHoursMode: DatabaseValueConvertible {}
