import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `moderation_action`: what a moderator did about one object, and to whom.
struct ModerationActionRecord: ServiceRecord {
    static let databaseTableName = "moderation_action"

    var id: String
    var targetType: ReportTargetType
    var targetId: String
    var userId: String
    var moderatorId: String
    var action: ModerationActionKind
    var reason: String
    var endsAt: Date?
    var createdAt: Date
    var reversedAt: Date?
    /// When the suspension's time ran out.
    var endedAt: Date?

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case userId = "user_id"
        case targetType = "target_type"
        case targetId = "target_id"
        case createdAt = "created_at"
    }

    func contract(appeal: AppealRecord?) -> ModerationAction {
        ModerationAction(
            id: id, targetType: targetType, targetId: targetId, userId: userId, moderatorId: moderatorId,
            action: action, reason: reason, endsAt: endsAt, createdAt: createdAt, reversedAt: reversedAt,
            appeal: appeal?.contract)
    }
}

extension ModerationActionKind: DatabaseValueConvertible {}
