import GRDB
import ServiceHTTP

/// A row of `kit_block`: `blockerId` blocks `blockedId`, as moderation last said.
public struct BlockMirrorRecord: ServiceRecord, Equatable, Sendable {
    public static let databaseTableName = "kit_block"

    public var blockerId: String
    public var blockedId: String

    public init(blockerId: String, blockedId: String) {
        self.blockerId = blockerId
        self.blockedId = blockedId
    }

    /// The columns queries name.
    public enum Columns: String, ColumnExpression {
        case blockerId = "blocker_id"
        case blockedId = "blocked_id"
    }
}
