import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Heatmap calendars: one streak's days as the reader sees them, and all of a user's snaps.
extension StreakStore {
    /// The last `days` days of one of `user`'s streaks, ending on the reader's today (nil: not
    /// theirs). Only snaps that count are shown.
    func calendar(of streakID: String, viewer user: String, days: Int, at now: Date) async throws -> HeatmapCalendar? {
        try await database.tracedRead { db in
            guard let streak = try StreakRecord.filter(key: streakID).of(user).fetchOne(db) else { return nil }
            let (from, to, dates) = try Self.range(days, for: user, at: now, in: db)
            typealias Columns = StreakSnapRecord.Columns
            let snaps = try StreakSnapRecord.filter(Columns.streakId == streakID && Columns.ready == true)
                .filter(Columns.localDate >= from.description && Columns.localDate <= to.description).fetchAll(db)
            let breaks = try Set(
                String.fetchAll(
                    db,
                    StreakBreakRecord.filter(
                        StreakBreakRecord.Columns.streakId == streakID && StreakBreakRecord.Columns.recovered == false
                    ).select(StreakBreakRecord.Columns.localDate)))
            let friend = streak.partner(of: user)
            let senders = Dictionary(grouping: snaps, by: \.localDate).mapValues { Set($0.map(\.userId)) }
            let codes = dates.map { date in
                if breaks.contains(date) { return 4 }
                let sent = senders[date] ?? []
                return (sent.contains(user) ? 1 : 0) + (sent.contains(friend) ? 2 : 0)
            }
            return HeatmapCalendar(from: from.description, to: to.description, days: codes)
        }
    }

    /// The last `days` days of `user`'s snaps across all their streaks.
    func calendar(of user: String, days: Int, at now: Date) async throws -> HeatmapCalendar {
        try await database.tracedRead { db in
            let (from, to, dates) = try Self.range(days, for: user, at: now, in: db)
            let counts = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT local_date, COUNT(*) AS streaks FROM streak_snap
                        WHERE user_id = ? AND local_date BETWEEN ? AND ? GROUP BY local_date
                        """), arguments: [user, from.description, to.description]
            ).reduce(into: [String: Int]()) { $0[$1["local_date"]] = $1["streaks"] }
            return HeatmapCalendar(from: from.description, to: to.description, days: dates.map { counts[$0] ?? 0 })
        }
    }

    /// `days` days ending on `user`'s today (in the zone of their latest snap).
    static func range(
        _ days: Int, for user: String, at now: Date, in db: Database
    ) throws -> (from: LocalDay, to: LocalDay, dates: [String]) {
        let zone = try MemberRecord.fetchOne(db, key: user)?.zone ?? TimeZone(identifier: "UTC")!
        let to = LocalDay(now, in: zone)
        let from = to.adding(days: 1 - days)
        return (from, to, (0..<days).map { from.adding(days: $0).description })
    }
}
