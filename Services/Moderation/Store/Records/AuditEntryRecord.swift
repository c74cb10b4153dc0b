import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `audit_entry`: one thing that happened in moderation. Rows are only ever
/// inserted: triggers refuse any UPDATE or DELETE of the table.
struct AuditEntryRecord: ServiceRecord {
    static let databaseTableName = "audit_entry"

    var id: Int64? = nil
    var actorId: String
    var event: String
    var targetType: ReportTargetType?
    var targetId: String?
    var userId: String?
    var actionId: String?
    var reason: String?
    var createdAt: Date

    /// The actor of what rules and schedules did.
    static let system = "system"

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case id
        case userId = "user_id"
        case targetType = "target_type"
        case targetId = "target_id"
    }

    var contract: AuditEntry {
        AuditEntry(
            id: id ?? 0, actorId: actorId, event: event, targetType: targetType, targetId: targetId, userId: userId,
            actionId: actionId, reason: reason, createdAt: createdAt)
    }
}
