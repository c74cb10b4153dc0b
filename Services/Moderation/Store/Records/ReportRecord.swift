import Contracts
import Foundation
import GRDB
import ServiceKit

/// A row of `report`: one per reporter per target.
struct ReportRecord: ServiceRecord {
    static let databaseTableName = "report"

    var id: String
    var reporterId: String
    var targetType: ReportTargetType
    var targetId: String
    var targetOwnerId: String
    var reason: ReportReason
    var details: String?
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case reporterId = "reporter_id"
        case targetType = "target_type"
        case targetId = "target_id"
        case targetOwnerId = "target_owner_id"
    }

    var contract: Report {
        Report(
            id: id, targetType: targetType, targetId: targetId, reason: reason, details: details, createdAt: createdAt)
    }
}

extension ReportTargetType: DatabaseValueConvertible {}
extension ReportReason: DatabaseValueConvertible {}
