import Contracts
import GRDB
import ServiceKit

/// A row of `streak_profile`: a user's streak numbers as streak last published them
/// (`profile.streak_stats_changed`), with the revision they carried.
struct StreakProfileRecord: ServiceRecord {
    static let databaseTableName = "streak_profile"

    var userId: String
    var activeStreaks: Int
    var longestStreak: Int
    var totalSnaps: Int
    var revision: Int

    var stats: StreakProfileStats {
        StreakProfileStats(activeStreaks: activeStreaks, longestStreak: longestStreak, totalSnaps: totalSnaps)
    }
}
