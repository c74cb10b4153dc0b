import GRDB
import ServiceKit

/// A row of `user_name_word`: one searchable word of a user's display name
/// (``NameSearch/words(of:)``), so a prefix search reads an index range.
struct UserNameWordRecord: ServiceRecord {
    static let databaseTableName = "user_name_word"

    var word: String
    var userId: String

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case word
        case userId = "user_id"
    }

    /// Replaces the user's words with those of `displayName` (none for a deleted account).
    static func index(userID: String, displayName: String?, in db: Database) throws {
        try filter(Columns.userId == userID).deleteAll(db)
        for word in displayName.map(NameSearch.words(of:)) ?? [] {
            try UserNameWordRecord(word: word, userId: userID).insert(db, onConflict: .ignore)
        }
    }
}
