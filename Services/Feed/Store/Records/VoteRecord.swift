import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `vote`: one user's vote on one post, +1 or -1.
struct VoteRecord: ServiceRecord {
    static let databaseTableName = "vote"

    var postId: String
    var userId: String
    /// +1 (up) or -1 (down); see ``VoteValue/weight``.
    var value: Int
    var updatedAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case userId = "user_id"
    }
}

extension VoteValue {
    /// +1 or -1, as stored.
    var weight: Int { self == .up ? 1 : -1 }

    init?(weight: Int?) {
        switch weight {
        case 1: self = .up
        case -1: self = .down
        default: return nil
        }
    }
}
