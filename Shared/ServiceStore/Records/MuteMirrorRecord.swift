import GRDB
import ServiceHTTP

/// A row of `kit_mute`: `muterId` mutes `mutedId`, as moderation last said.
public struct MuteMirrorRecord: ServiceRecord, Equatable, Sendable {
    public static let databaseTableName = "kit_mute"

    public var muterId: String
    public var mutedId: String

    public init(muterId: String, mutedId: String) {
        self.muterId = muterId
        self.mutedId = mutedId
    }

    /// The columns queries name.
    public enum Columns: String, ColumnExpression {
        case muterId = "muter_id"
        case mutedId = "muted_id"
    }
}
