import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `affinity`: how much `userId` engages with `authorId`'s posts (likes, replies,
/// reposts, dwell, less skips), kept in the transaction of each.
struct AffinityRecord: ServiceRecord {
    static let databaseTableName = "affinity"

    var userId: String
    var authorId: String
    var score: Double
}
