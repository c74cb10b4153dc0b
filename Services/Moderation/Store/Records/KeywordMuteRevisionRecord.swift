import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `keyword_mute_revision`: how often `userId`'s keyword mutes changed.
struct KeywordMuteRevisionRecord: ServiceRecord {
    static let databaseTableName = "keyword_mute_revision"

    var userId: String
    var revision: Int
}
