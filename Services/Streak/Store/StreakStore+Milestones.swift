import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Milestones (``Milestones/counts``) and the profile's stats and achievements.
extension StreakStore {
    /// Records that `streak` reached `count` on `day` when it is a milestone, and tells both
    /// (`streak.milestone`), once.
    func reachMilestone(
        _ streak: StreakRecord, day: LocalDay, count: Int, members: [StreakMember], at now: Date, in db: Database
    ) throws {
        guard Milestones.counts.contains(count) else { return }
        try StreakMilestoneRecord(streakId: streak.id, localDate: day.description, count: count, reachedAt: now)
            .insert(db, onConflict: .ignore)
        guard db.changesCount > 0 else { return }
        try outbox.enqueue(
            StreakMilestoneReached(
                streakId: streak.id, count: count, date: day.description, members: members,
                earnedToken: count.isMultiple(of: Self.earningDays)), in: db)
    }

    /// What a share card of one of `user`'s streaks shows, settled as of `now`; nil when the
    /// streak is not theirs.
    func milestoneData(of streakID: String, viewer user: String, at now: Date) async throws -> MilestoneData? {
        try await database.tracedRead { db in
            guard let record = try StreakRecord.filter(key: streakID).of(user).fetchOne(db) else { return nil }
            let standing = try Self.standing(of: record, viewer: user, at: now, in: db)
            let progress = standing.progress
            let members = try Self.members(of: record, in: db).sorted { one, _ in one.userId == user }
            let reached = try StreakMilestoneRecord.filter(StreakMilestoneRecord.Columns.streakId == streakID)
                .order(StreakMilestoneRecord.Columns.localDate.desc).fetchAll(db)
            let next = Milestones.next(after: progress.count)
            return MilestoneData(
                streakId: streakID, count: progress.count, longestCount: progress.longest,
                startedOn: progress.count > 0 ? progress.lastKept?.adding(days: 1 - progress.count).description : nil,
                members: members,
                reached: reached.map { ReachedMilestone(count: $0.count, date: $0.localDate, reachedAt: $0.reachedAt) },
                next: next, daysToNext: next.map { $0 - progress.count })
        }
    }

    /// `user`'s profile numbers as of `now` (a Pro user's monthly tokens credited first).
    func stats(of user: String, premium: Bool, at now: Date) async throws -> StreakStats {
        try await database.tracedWrite { db in
            if premium { try Self.creditMonthly(user, at: now, in: db) }
            let shown = try Self.profileStats(of: user, at: now, in: db)
            let recoveries = try RecoveryTokenRecord.filter(
                RecoveryTokenRecord.Columns.userId == user
                    && RecoveryTokenRecord.Columns.reason == RecoveryTransactionType.used.rawValue
            ).fetchCount(db)
            let promptSnaps = try SnapRecord.filter(
                SnapRecord.Columns.userId == user && SnapRecord.Columns.prompt != nil
            )
            .fetchCount(db)
            return StreakStats(
                activeStreaks: shown.activeStreaks, longestStreak: shown.longestStreak, totalSnaps: shown.totalSnaps,
                recoveryTokens: try Self.balance(of: user, in: db),
                achievements: Milestones.achievements(
                    longest: shown.longestStreak, recoveries: recoveries, promptSnaps: promptSnaps))
        }
    }

    /// What `user`'s public profile shows (auth asks at each read, so a break at the deadline
    /// shows at once and the deadline pass writes nothing more): nil for someone with no streak
    /// and no snap.
    func profileStats(of user: String, at now: Date) async throws -> StreakProfileStats? {
        try await database.tracedRead { db in
            let stats = try Self.profileStats(of: user, at: now, in: db)
            return stats == StreakProfileStats(activeStreaks: 0, longestStreak: 0, totalSnaps: 0) ? nil : stats
        }
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
