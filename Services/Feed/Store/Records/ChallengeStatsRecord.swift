import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `challenge_stats`: one user's standing, changed only by results
/// (``ChallengeLifecycle/standing(after:of:)``).
struct ChallengeStatsRecord: ServiceRecord {
    static let databaseTableName = "challenge_stats"

    var userId: String
    var points = 0
    var wins = 0
    var losses = 0
    var draws = 0
    var streak = 0
    var bestStreak = 0
    var updatedAt: Date

    func contract(spotsUnlocked: Int) -> ChallengeStats {
        ChallengeStats(
            userId: userId, points: points, wins: wins, losses: losses, draws: draws, streak: streak,
            bestStreak: bestStreak, spotsUnlocked: spotsUnlocked)
    }
}
