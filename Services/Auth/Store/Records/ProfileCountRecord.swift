import Contracts
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `profile_count`: a user's followers, following and posts, and their challenge
/// standing (JSON) once they have one, as feed last published them (`profile.counts_changed`),
/// with the revision they carried.
struct ProfileCountRecord: ServiceRecord {
    static let databaseTableName = "profile_count"

    var userId: String
    var followers: Int
    var following: Int
    var posts: Int
    var challenges: ChallengeStats?
    var revision: Int

    var counts: ProfileCounts { ProfileCounts(followers: followers, following: following, posts: posts) }

    /// `userID`'s row, read with a statement the connection keeps (`GET /v1/me` reads it).
    static func of(_ userID: String, in db: Database) throws -> ProfileCountRecord? {
        try fetchOne(db.cachedStatement(sql: "SELECT * FROM profile_count WHERE user_id = ?"), arguments: [userID])
    }
}
