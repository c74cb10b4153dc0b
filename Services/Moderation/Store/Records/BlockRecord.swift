import Contracts
import Foundation
import GRDB
import ServiceKit

/// A row of `block`: the source of truth for who blocks whom (other services keep copies
/// through `user.blocked` and `user.unblocked`).
struct BlockRecord: ServiceRecord {
    static let databaseTableName = "block"

    var blockerId: String
    var blockedId: String
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case blockerId = "blocker_id"
        case blockedId = "blocked_id"
    }

    var contract: Block { Block(userId: blockedId, createdAt: createdAt) }
}
