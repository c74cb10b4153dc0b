import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `moderation_target`: an object someone reported or a moderator acted on, with
/// its open reports' weight and whether reports hid it or a moderator removed it.
struct ModerationTargetRecord: ServiceRecord {
    static let databaseTableName = "moderation_target"

    var targetType: ReportTargetType
    var targetId: String
    /// Distinct reporters, ever.
    var reportCount: Int = 0
    var hiddenAt: Date?
    var ownerId: String
    /// The open reports' weights, summed.
    var weight: Double = 0
    var openReports: Int = 0
    /// The oldest open report's time; nil when none is open (the queue's order).
    var firstOpenAt: Date?
    var removedAt: Date?

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case targetType = "target_type"
        case targetId = "target_id"
        case ownerId = "owner_id"
        case firstOpenAt = "first_open_at"
    }

    static func key(_ type: ReportTargetType, _ id: String) -> [String: any DatabaseValueConvertible] {
        ["target_type": type.rawValue, "target_id": id]
    }

    /// Its open reports were resolved: nothing waits in the queue.
    mutating func closeReports() {
        (weight, openReports, firstOpenAt) = (0, 0, nil)
    }
}
