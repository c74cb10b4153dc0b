import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `user_mute`: the source of truth for who mutes whom (auth, feed and alerts keep
/// copies through `user.muted` and `user.unmuted`).
struct UserMuteRecord: UserRelationRecord {
    static let databaseTableName = "user_mute"
    static let actorColumn = "muter_id"
    static let targetColumn = "muted_id"

    var muterId: String
    var mutedId: String
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case muterId = "muter_id"
        case mutedId = "muted_id"
    }

    init(actorId: String, targetId: String, createdAt: Date) {
        (muterId, mutedId, self.createdAt) = (actorId, targetId, createdAt)
    }

    var actorId: String { muterId }
    var targetId: String { mutedId }
    var began: UserMuted { UserMuted(muterId: muterId, mutedId: mutedId) }
    var ended: UserUnmuted { UserUnmuted(muterId: muterId, mutedId: mutedId) }
}
