import Foundation
import GRDB
import ServiceKit

/// A row of `member`: what streak knows of a person in a streak, for deadlines and
/// notifications. The time zone is the one of their latest snap (UTC before it); the display
/// name is the one they had when they last sent or accepted a friend request.
struct MemberRecord: ServiceRecord {
    static let databaseTableName = "member"

    var userId: String
    var displayName: String?
    var timeZone: String
    var updatedAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case userId = "user_id"
        case displayName = "display_name"
        case timeZone = "time_zone"
        case updatedAt = "updated_at"
    }

    var zone: TimeZone { TimeZone(identifier: timeZone) ?? TimeZone(identifier: "UTC")! }

    /// Records `user`'s display name (keeping their zone) or zone (keeping their name).
    static func remember(
        _ user: String, displayName: String? = nil, zone: TimeZone? = nil, at now: Date, in db: Database
    ) throws {
        var record =
            try MemberRecord.fetchOne(db, key: user)
            ?? MemberRecord(userId: user, displayName: nil, timeZone: "UTC", updatedAt: now)
        if let displayName { record.displayName = displayName }
        if let zone { record.timeZone = zone.identifier }
        record.updatedAt = now
        try record.save(db)
    }
}
