import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `conversation`: one per pair of people, whoever wrote first (`firstUserId` sorts
/// before `secondUserId`, so the pair is unique either way round).
struct ConversationRecord: ServiceRecord {
    static let databaseTableName = "conversation"

    var id: String
    var firstUserId: String
    var secondUserId: String
    /// Who wrote first.
    var startedBy: String
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case firstUserId = "first_user_id"
        case secondUserId = "second_user_id"
        case startedBy = "started_by"
        case createdAt = "created_at"
    }

    var participants: [String] { [firstUserId, secondUserId] }
}

extension DerivableRequest<ConversationRecord> {
    /// The conversation between `a` and `b`, either way round.
    func between(_ a: String, _ b: String) -> Self {
        let (first, second) = a < b ? (a, b) : (b, a)
        return filter(
            ConversationRecord.Columns.firstUserId == first && ConversationRecord.Columns.secondUserId == second)
    }
}
