import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

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
    var status: ReportStatus = .open
    /// How much it counts towards hiding its target (``ReporterTrust``), fixed when it is made.
    var weight: Double = 1
    var resolvedAt: Date?
    /// The action that resolved it.
    var actionId: String?

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case id, status
        case reporterId = "reporter_id"
        case targetType = "target_type"
        case targetId = "target_id"
        case targetOwnerId = "target_owner_id"
        case createdAt = "created_at"
        case actionId = "action_id"
    }

    var contract: Report {
        Report(
            id: id, targetType: targetType, targetId: targetId, reason: reason, details: details, status: status,
            createdAt: createdAt, resolvedAt: resolvedAt)
    }

    var queued: QueuedReport {
        QueuedReport(
            id: id, reporterId: reporterId, reason: reason, details: details, weight: weight, status: status,
            createdAt: createdAt)
    }
}

extension DerivableRequest<ReportRecord> {
    /// The reports of one target.
    func of(_ type: ReportTargetType, _ id: String) -> Self {
        filter(ReportRecord.Columns.targetType == type && ReportRecord.Columns.targetId == id)
    }

    /// Reports no moderator has resolved.
    func open() -> Self { filter(ReportRecord.Columns.status == ReportStatus.open) }
}

extension ReportTargetType: DatabaseValueConvertible {}
extension ReportReason: DatabaseValueConvertible {}
extension ReportStatus: DatabaseValueConvertible {}
