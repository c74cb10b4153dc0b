import Contracts
import Foundation
import GRDB
import ServiceKit

/// Streaks and the snaps that advance them.
extension StreakStore {
    func streaks(of user: String, after position: TimePosition?, limit: Int) async throws -> [StreakRecord] {
        try await database.read { db in
            try StreakRecord.all().of(user).newestFirst(after: position, limit: limit).fetchAll(db)
        }
    }

    func streak(id: String, of user: String) async throws -> StreakRecord? {
        try await database.read { db in try StreakRecord.filter(key: id).of(user).fetchOne(db) }
    }

    /// The time zone of `user`'s latest snap (UTC before the first one).
    func zone(of user: String) async throws -> TimeZone {
        let name = try await database.read { db in
            try SnapRecord.filter(SnapRecord.Columns.userId == user).order(SnapRecord.Columns.createdAt.desc)
                .fetchOne(db)?.timeZone
        }
        return name.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!
    }

    /// Records today's snap and, for every active streak of the sender whose partner has
    /// snapped for the same local day, counts the day (``StreakRules``). Returns the sender's
    /// streaks after the change.
    func snap(_ snap: SnapRecord) async throws -> [StreakRecord] {
        try await database.write { db in
            guard try SnapRecord.all().by(snap.userId, on: snap.localDate).isEmpty(db) else {
                throw ServiceError(.conflict, "You already snapped for \(snap.localDate).")
            }
            try snap.insert(db)
            let day = LocalDay(snap.localDate)!
            var streaks = try StreakRecord.all().of(snap.userId).active().fetchAll(db)
            for index in streaks.indices {
                var streak = streaks[index]
                let partner = streak.partner(of: snap.userId)
                guard try SnapRecord.all().by(partner, on: snap.localDate).isEmpty(db) == false,
                    let count = StreakRules.count(
                        completing: day, lastCompleted: streak.lastCompletedDate.flatMap(LocalDay.init),
                        count: streak.count)
                else { continue }
                streak.count = count
                streak.longestCount = max(streak.longestCount, count)
                streak.lastCompletedDate = day.description
                try streak.update(db)
                streaks[index] = streak
            }
            return streaks
        }
    }
}
