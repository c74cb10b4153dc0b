import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `streak`: one per pair of friends, `userA < userB`. Its columns hold a
/// ``StreakProgress``; the deadline job (`streak.deadline`, keyed by the streak id) moves it.
struct StreakRecord: ServiceRecord, Equatable {
    static let databaseTableName = "streak"

    var id: String
    var userA: String
    var userB: String
    var count: Int
    var longestCount: Int
    /// The last local day (`YYYY-MM-DD`) that kept the streak (both snapped, or recovered).
    var lastCompletedDate: String?
    var status: StreakStatus
    /// `missed` (a day closed incomplete), `suspended` or `banned` (a moderator's decision about
    /// either, ``StreakProgress/Forfeit``), or one of ``endings``; nil while it was never broken.
    var brokenReason: String?
    /// The last missed day, the count it had, who missed it.
    var brokenDay: String?
    var brokenCount: Int
    var missedBy: [String]?
    var recoveryUsed: Bool
    /// The day the last at-risk warning went out for.
    var warnedDay: String?
    var createdAt: Date

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case id, status
        case userA = "user_a"
        case userB = "user_b"
        case brokenReason = "broken_reason"
    }

    /// A new streak between two friends, not started yet.
    init(id: String, between one: String, and other: String, at now: Date) {
        (userA, userB) = Self.pair(one, other)
        self.id = id
        count = 0
        longestCount = 0
        status = .active
        brokenCount = 0
        recoveryUsed = false
        createdAt = now
    }

    /// Read and written by hand rather than through `Codable`: the deadline job reads and
    /// writes every streak it moves (a million a night), and column-name conversion was a
    /// quarter of that work.
    init(row: Row) throws {
        id = try row.decode(forColumn: "id")
        userA = try row.decode(forColumn: "user_a")
        userB = try row.decode(forColumn: "user_b")
        count = try row.decode(forColumn: "count")
        longestCount = try row.decode(forColumn: "longest_count")
        lastCompletedDate = try row.decode(forColumn: "last_completed_date")
        status = try row.decode(forColumn: "status")
        brokenReason = try row.decode(forColumn: "broken_reason")
        brokenDay = try row.decode(forColumn: "broken_day")
        brokenCount = try row.decode(forColumn: "broken_count")
        let missed: String? = try row.decode(forColumn: "missed_by")
        missedBy = try missed.map { try JSONCoding.sharedDecoder.decode([String].self, from: Data($0.utf8)) }
        recoveryUsed = try row.decode(forColumn: "recovery_used")
        warnedDay = try row.decode(forColumn: "warned_day")
        createdAt = try row.decode(forColumn: "created_at")
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["user_a"] = userA
        container["user_b"] = userB
        container["count"] = count
        container["longest_count"] = longestCount
        container["last_completed_date"] = lastCompletedDate
        container["status"] = status
        container["broken_reason"] = brokenReason
        container["broken_day"] = brokenDay
        container["broken_count"] = brokenCount
        container["missed_by"] = try missedByText()
        container["recovery_used"] = recoveryUsed
        container["warned_day"] = warnedDay
        container["created_at"] = createdAt
    }

    /// Saves the columns ``progress`` moves, with a statement the connection keeps (the deadline
    /// job saves every streak it moves).
    func updateProgress(_ db: Database) throws {
        try db.cachedStatement(
            sql: """
                UPDATE streak SET count = ?, longest_count = ?, last_completed_date = ?, status = ?, broken_reason = ?,
                                  broken_day = ?, broken_count = ?, missed_by = ?, recovery_used = ?, warned_day = ?
                WHERE id = ?
                """
        ).execute(arguments: [
            count, longestCount, lastCompletedDate, status, brokenReason, brokenDay, brokenCount, try missedByText(),
            recoveryUsed, warnedDay, id,
        ])
    }

    /// `missedBy` as its column holds it: a JSON array.
    func missedByText() throws -> String? {
        try missedBy.map { String(decoding: try JSONCoding.sharedEncoder.encode($0), as: UTF8.self) }
    }

    /// Reasons that end a streak for good: the two are no longer friends.
    static let endings: Set<String> = ["blocked", "unfriended"]

    /// Streaks of two people who are still friends (not ended by a block or an unfriending),
    /// as SQL: ``DerivableRequest/ofFriends()``, and the lists on kept statements.
    static let stillFriends =
        "(broken_reason IS NULL OR broken_reason NOT IN ("
        + endings.sorted().map { "'\($0)'" }.joined(separator: ", ") + "))"

    /// The pair in stored order.
    static func pair(_ one: String, _ other: String) -> (String, String) {
        one < other ? (one, other) : (other, one)
    }

    var members: [String] { [userA, userB] }

    /// Whether the two are still friends (no block or unfriending ended it).
    var isFriendship: Bool { brokenReason.map { !Self.endings.contains($0) } ?? true }

    func partner(of user: String) -> String { user == userA ? userB : userA }

    /// The rules' view of the row, and back.
    var progress: StreakProgress {
        get {
            StreakProgress(
                status: status, count: count, longest: longestCount, lastKept: lastCompletedDate.flatMap(LocalDay.init),
                lastBreak: brokenDay.flatMap(LocalDay.init).map {
                    StreakProgress.Break(day: $0, count: brokenCount, missedBy: missedBy ?? [])
                },
                recoveryUsed: recoveryUsed, warned: warnedDay.flatMap(LocalDay.init),
                ended: brokenReason.map(Self.endings.contains) ?? false,
                forfeit: brokenReason.flatMap(StreakProgress.Forfeit.init))
        }
        set {
            status = newValue.status
            count = newValue.count
            longestCount = newValue.longest
            lastCompletedDate = newValue.lastKept?.description
            if let lastBreak = newValue.lastBreak, !newValue.ended {
                if newValue.status == .broken { brokenReason = newValue.forfeit?.rawValue ?? "missed" }
                brokenDay = lastBreak.day.description
                brokenCount = lastBreak.count
                missedBy = lastBreak.missedBy
            }
            recoveryUsed = newValue.recoveryUsed
            warnedDay = newValue.warned?.description
        }
    }

    /// The streak as `viewer` sees it: `progress` is the row settled as of `now` (so its due
    /// day is never complete), `snapped` who has snapped for the viewer's open day.
    func contract(
        viewer: String, progress: StreakProgress, pair: StreakPair, snapped: Set<String>, now: Date
    ) -> Streak {
        let due = progress.dueDay
        let broken = progress.status == .broken
        return Streak(
            id: id, friendId: partner(of: viewer), count: broken ? 0 : progress.count,
            longestCount: progress.longest, lastCompletedDate: progress.lastKept?.description,
            status: progress.status, dueDate: due?.description, closesAt: due.map(pair.closes),
            atRisk: due.map { now >= pair.atRisk($0) } ?? false,
            snappedByMe: snapped.contains(viewer), snappedByFriend: snapped.contains(partner(of: viewer)),
            brokenDate: progress.lastBreak?.day.description, missedBy: progress.lastBreak?.missedBy,
            brokenCount: progress.lastBreak?.count, recoverableUntil: progress.recoverableUntil(pair: pair),
            recoveryUsed: progress.recoveryUsed, createdAt: createdAt)
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

    /// Streaks whose two are still friends (not ended by a block or unfriending): snaps can
    /// go into them.
    func ofFriends() -> Self { filter(sql: StreakRecord.stillFriends) }
}

extension StreakStatus: DatabaseValueConvertible {}
