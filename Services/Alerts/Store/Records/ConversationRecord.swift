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

extension ConversationRecord {
    /// The conversation between `a` and `b`, either way round, read with a statement the
    /// connection keeps (every message asks).
    static func between(_ a: String, _ b: String, in db: Database) throws -> ConversationRecord? {
        let (first, second) = a < b ? (a, b) : (b, a)
        return try fetchOne(
            db.cachedStatement(sql: "SELECT * FROM conversation WHERE first_user_id = ? AND second_user_id = ?"),
            arguments: [first, second])
    }
}
