import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `message`: one direct message. `seq` numbers every message in order (never
/// reused: `AUTOINCREMENT`), so read and cleared marks are exact however many arrive in one
/// millisecond; nil until inserted.
struct MessageRecord: ServiceRecord {
    static let databaseTableName = "message"

    var seq: Int64?
    var id: String
    var conversationId: String
    var senderId: String
    var text: String?
    var mediaId: String?
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case seq
        case id
        case conversationId = "conversation_id"
        case senderId = "sender_id"
    }

    /// The number of conversation `id`'s newest message (0 when it has none).
    static func newestSeq(in id: String, _ db: Database) throws -> Int64 {
        try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT max(seq) FROM message WHERE conversation_id = ?"), arguments: [id]) ?? 0
    }

    var contract: DirectMessage {
        DirectMessage(
            id: id, conversationId: conversationId, senderId: senderId, text: text, mediaId: mediaId,
            createdAt: createdAt)
    }
}
