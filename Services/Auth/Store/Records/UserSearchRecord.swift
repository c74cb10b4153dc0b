import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `user_search`: the lasting integer key of a user's row in `user_fts`, the FTS5
/// index people search reads (their username, and their display name's words folded by
/// ``NameSearch/words(of:)`` for case, accents and width). Only app users are indexed.
struct UserSearchRecord: ServiceRecord {
    static let databaseTableName = "user_search"

    var id: Int64?
    var userId: String

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case id
        case userId = "user_id"
    }

    /// Indexes the user's username and display name as they are now, or takes the user out of
    /// the index (a nil name: a deleted account).
    static func index(userID: String, username: String?, displayName: String?, in db: Database) throws {
        let existing = try Int64.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM user_search WHERE user_id = ?"), arguments: [userID])
        if let existing {
            try db.execute(sql: "DELETE FROM user_fts WHERE rowid = ?", arguments: [existing])
        }
        guard let displayName else {
            try db.execute(sql: "DELETE FROM user_search WHERE user_id = ?", arguments: [userID])
            return
        }
        let key: Int64
        if let existing {
            key = existing
        } else {
            try UserSearchRecord(id: nil, userId: userID).insert(db)
            key = db.lastInsertedRowID
        }
        try db.execute(
            sql: "INSERT INTO user_fts (rowid, username, name) VALUES (?, ?, ?)",
            arguments: [key, username ?? "", NameSearch.words(of: displayName).joined(separator: " ")])
    }
}
