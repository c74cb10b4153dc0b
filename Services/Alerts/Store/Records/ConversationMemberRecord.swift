import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `conversation_member`: one of a conversation's two people and where it stands for
/// them. Messages are numbered (`message.seq`); `readSeq` is the last they read and
/// `clearedSeq` the last one they deleted the conversation at (they see only later ones).
struct ConversationMemberRecord: ServiceRecord {
    static let databaseTableName = "conversation_member"

    var conversationId: String
    var userId: String
    var otherUserId: String
    var folder: MessageFolder
    /// Deleted for them; shown again by the next message they see.
    var hidden: Bool
    var readSeq: Int64
    var clearedSeq: Int64
    /// When the last message they see arrived (their list is ordered by it).
    var updatedAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case conversationId = "conversation_id"
        case userId = "user_id"
        case otherUserId = "other_user_id"
        case folder
        case hidden
        case updatedAt = "updated_at"
    }
}

extension ConversationMemberRecord {
    /// `user`'s side of conversation `id` (nil: it is not theirs), read with a statement the
    /// connection keeps (every message reads its recipient's side).
    static func find(_ id: String, of user: String, in db: Database) throws -> ConversationMemberRecord? {
        try fetchOne(
            db.cachedStatement(sql: "SELECT * FROM conversation_member WHERE conversation_id = ? AND user_id = ?"),
            arguments: [id, user])
    }
}

extension DerivableRequest<ConversationMemberRecord> {
    /// `user`'s side of their conversations.
    func of(_ user: String) -> Self { filter(ConversationMemberRecord.Columns.userId == user) }
}

extension MessageFolder: DatabaseValueConvertible {}
