import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `follow`: `followerId` follows `followeeId` since `createdAt`.
struct FollowRecord: ServiceRecord {
    static let databaseTableName = "follow"

    var followerId: String
    var followeeId: String
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case followerId = "follower_id"
        case followeeId = "followee_id"
        case createdAt = "created_at"
    }
}
