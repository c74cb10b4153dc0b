import Contracts
import Foundation
import GRDB
import ServiceKit

/// A row of `streak`: one per pair of friends, `userA < userB`.
struct StreakRecord: ServiceRecord {
    static let databaseTableName = "streak"

    var id: String
    var userA: String
    var userB: String
    var count: Int
    var longestCount: Int
    /// The last local day (`YYYY-MM-DD`) both friends snapped.
    var lastCompletedDate: String?
    var status: StreakStatus
    var brokenReason: String?
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case status
        case userA = "user_a"
        case userB = "user_b"
        case brokenReason = "broken_reason"
    }

    /// The pair in stored order.
    static func pair(_ one: String, _ other: String) -> (String, String) {
        one < other ? (one, other) : (other, one)
    }

    func partner(of user: String) -> String { user == userA ? userB : userA }

    /// The streak as `viewer` sees it on `today` (their local day): a lapsed streak reads as
    /// broken with count 0 (``StreakRules/hasLapsed(lastCompleted:today:)``).
    func contract(viewer: String, today: LocalDay) -> Streak {
        let lapsed = StreakRules.hasLapsed(lastCompleted: lastCompletedDate.flatMap(LocalDay.init), today: today)
        let broken = status == .broken || lapsed
        return Streak(
            id: id, friendId: partner(of: viewer), count: broken ? 0 : count, longestCount: longestCount,
            lastCompletedDate: lastCompletedDate, status: broken ? .broken : .active, createdAt: createdAt)
    }
}

extension DerivableRequest<StreakRecord> {
    /// The streak of two friends, named in either order.
    func pair(_ one: String, _ other: String) -> Self {
        let (a, b) = StreakRecord.pair(one, other)
        return filter(StreakRecord.Columns.userA == a && StreakRecord.Columns.userB == b)
    }

    /// The streaks `user` is in.
    func of(_ user: String) -> Self {
        filter(StreakRecord.Columns.userA == user || StreakRecord.Columns.userB == user)
    }

    /// Streaks that are not broken.
    func active() -> Self {
        filter(StreakRecord.Columns.status == StreakStatus.active)
    }
}

extension StreakStatus: DatabaseValueConvertible {}
