import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `challenge_vote`: one voter's choice on one challenge, changeable until voting ends.
struct ChallengeVoteRecord: ServiceRecord {
    static let databaseTableName = "challenge_vote"

    var challengeId: String
    var voterId: String
    /// The participant voted for.
    var votedFor: String
    var updatedAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case challengeId = "challenge_id"
        case voterId = "voter_id"
        case votedFor = "voted_for"
    }
}
