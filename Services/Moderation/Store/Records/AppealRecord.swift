import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `appeal`: at most one per action, by the user it touched.
struct AppealRecord: ServiceRecord {
    static let databaseTableName = "appeal"

    var id: String
    var actionId: String
    var userId: String
    var statement: String
    var status: AppealStatus
    var decidedBy: String?
    var decisionReason: String?
    var createdAt: Date
    var decidedAt: Date?

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case id, status
        case actionId = "action_id"
        case createdAt = "created_at"
    }

    var contract: Appeal {
        Appeal(
            id: id, actionId: actionId, userId: userId, statement: statement, status: status, decidedBy: decidedBy,
            decisionReason: decisionReason, createdAt: createdAt, decidedAt: decidedAt)
    }
}

extension AppealStatus: DatabaseValueConvertible {}
