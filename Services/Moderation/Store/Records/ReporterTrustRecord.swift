import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `reporter_trust`: how a user's reports have fared with moderators, which sets how
/// much their next report weighs (``ReporterTrust``).
struct ReporterTrustRecord: ServiceRecord {
    static let databaseTableName = "reporter_trust"

    var userId: String
    /// Reports a moderator acted on (and no appeal reversed).
    var upheld: Int = 0
    /// Reports a moderator dismissed (or whose action an appeal reversed).
    var dismissed: Int = 0

    /// Adds to `reporter`'s tallies.
    static func record(_ reporter: String, upheld: Int = 0, dismissed: Int = 0, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO reporter_trust (user_id, upheld, dismissed) VALUES (?1, MAX(?2, 0), MAX(?3, 0))
                ON CONFLICT (user_id) DO UPDATE SET upheld = MAX(upheld + ?2, 0), dismissed = MAX(dismissed + ?3, 0)
                """, arguments: [reporter, upheld, dismissed])
    }
}
