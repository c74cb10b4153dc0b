import Contracts
import GRDB
import ServiceKit

/// A row of `profile_stats`: the streak numbers last published for a user's profile
/// (`profile.streak_stats_changed`) and the revision they went with.
struct ProfileStatsRecord: ServiceRecord {
    static let databaseTableName = "profile_stats"

    var userId: String
    var activeStreaks: Int
    var longestStreak: Int
    var totalSnaps: Int
    var revision: Int

    var stats: StreakProfileStats {
        StreakProfileStats(activeStreaks: activeStreaks, longestStreak: longestStreak, totalSnaps: totalSnaps)
    }
}
