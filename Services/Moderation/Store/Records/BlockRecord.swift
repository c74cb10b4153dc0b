import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `block`: the source of truth for who blocks whom (other services keep copies
/// through `user.blocked` and `user.unblocked`).
struct BlockRecord: UserRelationRecord {
    static let databaseTableName = "block"
    static let actorColumn = "blocker_id"
    static let targetColumn = "blocked_id"

    var blockerId: String
    var blockedId: String
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case blockerId = "blocker_id"
        case blockedId = "blocked_id"
    }

    init(actorId: String, targetId: String, createdAt: Date) {
        (blockerId, blockedId, self.createdAt) = (actorId, targetId, createdAt)
    }

    var actorId: String { blockerId }
    var targetId: String { blockedId }
    var began: UserBlocked { UserBlocked(blockerId: blockerId, blockedId: blockedId) }
    var ended: UserUnblocked { UserUnblocked(blockerId: blockerId, blockedId: blockedId) }
}
