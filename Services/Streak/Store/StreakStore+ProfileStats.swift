import Contracts
import Foundation
import GRDB
import ServiceKit

/// The profile job: one per user, scheduled by every write that can move their numbers (a
/// snap, a kept or broken day, a recovery, an ended friendship) and run a moment later, so a
/// snap into ten streaks publishes once.
enum ProfileStatsJob {
    static let kind: JobKind = "streak.profile-stats"

    struct Job: Codable, Sendable {
        var userId: String
    }
}

/// The numbers a public profile shows (auth keeps them from `profile.streak_stats_changed`).
extension StreakStore {
    /// Asks for `users`' numbers to be published (once, however often asked before it runs).
    static func refreshProfileStats(of users: [String], jobs: JobQueue, in db: Database) throws {
        for user in Set(users).sorted() {
            try jobs.schedule(ProfileStatsJob.kind, key: user, payload: ProfileStatsJob.Job(userId: user), in: db)
        }
    }

    /// The job's work: publishes `user`'s numbers as of `now` when they differ from the last
    /// published (nothing for someone who never had any).
    func publishProfileStats(of user: String, at now: Date, in db: Database) throws {
        let stats = try Self.profileStats(of: user, at: now, in: db)
        let last = try ProfileStatsRecord.fetchOne(db, key: user)
        guard last?.stats != stats,
            last != nil || stats != StreakProfileStats(activeStreaks: 0, longestStreak: 0, totalSnaps: 0)
        else { return }
        let record = ProfileStatsRecord(
            userId: user, activeStreaks: stats.activeStreaks, longestStreak: stats.longestStreak,
            totalSnaps: stats.totalSnaps, revision: (last?.revision ?? 0) + 1)
        try record.upsert(db)
        try outbox.enqueue(StreakStatsChanged(userId: user, stats: stats, revision: record.revision), in: db)
    }

    /// `user`'s streaks that stand as of `now`, the longest count any reached, and their snaps.
    static func profileStats(of user: String, at now: Date, in db: Database) throws -> StreakProfileStats {
        let standings = try StreakRecord.all().of(user).fetchAll(db).map {
            try standing(of: $0, viewer: user, at: now, in: db)
        }
        return StreakProfileStats(
            activeStreaks: standings.filter { $0.progress.status == .active && !$0.progress.ended }.count,
            longestStreak: standings.map(\.progress.longest).max() ?? 0,
            totalSnaps: try SnapRecord.filter(SnapRecord.Columns.userId == user).fetchCount(db))
    }
}
