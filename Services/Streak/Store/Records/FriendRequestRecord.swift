import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `friend_request`.
struct FriendRequestRecord: ServiceRecord {
    static let databaseTableName = "friend_request"

    var id: String
    var fromUserId: String
    var toUserId: String
    /// Whether the sender was on Pro when they asked (a free sender is held to the free
    /// plan's limit when the request is accepted).
    var fromPremium: Bool
    var status: FriendRequestStatus
    var createdAt: Date
    var respondedAt: Date?

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case status
        case fromUserId = "from_user_id"
        case toUserId = "to_user_id"
        case respondedAt = "responded_at"
    }

    var contract: FriendRequest {
        FriendRequest(
            id: id, fromUserId: fromUserId, toUserId: toUserId, status: status, createdAt: createdAt,
            respondedAt: respondedAt)
    }
}

extension DerivableRequest<FriendRequestRecord> {
    /// Pending requests between two users, sent either way.
    func pending(between one: String, and other: String) -> Self {
        typealias Columns = FriendRequestRecord.Columns
        return filter(
            Columns.status == FriendRequestStatus.pending
                && ((Columns.fromUserId == one && Columns.toUserId == other)
                    || (Columns.fromUserId == other && Columns.toUserId == one))
        )
    }
}

extension FriendRequestStatus: DatabaseValueConvertible {}
