import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `keyword_mute`: a phrase `userId` keeps out of their feeds and notifications.
struct KeywordMuteRecord: ServiceRecord {
    static let databaseTableName = "keyword_mute"

    var id: String
    var userId: String
    var phrase: String
    var phraseKey: String
    var until: Date?
    var createdAt: Date

    enum Columns: String, ColumnExpression {
        case userId = "user_id"
        case until
    }

    var contract: KeywordMute { KeywordMute(id: id, phrase: phrase, until: until, createdAt: createdAt) }
}
