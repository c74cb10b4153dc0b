import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `member`: what streak knows of a person in a streak, for deadlines and
/// notifications. The time zone is the one of their latest snap (UTC before it); the display
/// name is the one they had when they last sent or accepted a friend request. `earliestHour`
/// is the earliest local hour their daily snap window may open (``SnapWindowRule``).
struct MemberRecord: ServiceRecord {
    static let databaseTableName = "member"

    var userId: String
    var displayName: String?
    var timeZone: String
    var earliestHour: Int
    var updatedAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case userId = "user_id"
        case displayName = "display_name"
        case timeZone = "time_zone"
        case earliestHour = "earliest_hour"
        case updatedAt = "updated_at"
    }

    var zone: TimeZone { TimeZone(identifier: timeZone) ?? TimeZone(identifier: "UTC")! }

    /// What streak knows of `user`, or the defaults (UTC, earliest hour 10).
    static func find(_ user: String, in db: Database) throws -> MemberRecord {
        try MemberRecord.fetchOne(db, key: user)
            ?? MemberRecord(
                userId: user, displayName: nil, timeZone: "UTC", earliestHour: SnapWindowRule.defaultEarliestHour,
                updatedAt: .distantPast)
    }

    /// Records `user`'s display name, zone or earliest hour (keeping what is not given).
    @discardableResult
    static func remember(
        _ user: String, displayName: String? = nil, zone: TimeZone? = nil, earliestHour: Int? = nil, at now: Date,
        in db: Database
    ) throws -> MemberRecord {
        var record = try find(user, in: db)
        if let displayName { record.displayName = displayName }
        if let zone { record.timeZone = zone.identifier }
        if let earliestHour { record.earliestHour = earliestHour }
        record.updatedAt = now
        try record.save(db)
        return record
    }
}

extension MemberRecord {
    /// Read by hand rather than through `Decodable`: the deadline job reads both members of
    /// every streak it moves.
    init(row: Row) throws {
        userId = try row.decode(forColumn: "user_id")
        displayName = try row.decode(forColumn: "display_name")
        timeZone = try row.decode(forColumn: "time_zone")
        earliestHour = try row.decode(forColumn: "earliest_hour")
        updatedAt = try row.decode(forColumn: "updated_at")
    }
}
