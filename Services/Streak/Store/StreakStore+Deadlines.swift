import Contracts
import Foundation
import GRDB
import ServiceKit

/// The deadline job: one per streak with a count to lose, keyed by the streak id, due at the
/// next moment that matters (its due day's at-risk time, then its close).
enum StreakDeadline {
    static let kind: JobKind = "streak.deadline"

    struct Job: Codable, Sendable {
        var streakId: String
    }
}

/// A streak settled as of some instant, with what its reader needs to see it.
struct StreakStanding: Sendable {
    var record: StreakRecord
    var progress: StreakProgress
    var pair: StreakPair
    /// The reader's open day: their today, or the due day while that is earlier (the reader's
    /// day is over but the pair's is still open).
    var day: LocalDay
    /// Who has a snap that counts for `day`.
    var snapped: Set<String>
    var now: Date

    func contract(viewer: String) -> Streak {
        record.contract(viewer: viewer, progress: progress, pair: pair, snapped: snapped, now: now)
    }
}

/// Moving streaks through time: the deadline job, and every write that touches a streak,
/// settle it first (``StreakProgress/settle(at:pair:snapped:)``); reads settle a copy, so a
/// streak read after a missed day agrees with what the job does.
extension StreakStore {
    /// The job's work for a group of streaks, in the transaction that completes them: each is
    /// settled and saved as ``settle(_:at:in:)`` does, with the group's streaks, members
    /// and snaps read by one query each (the nightly pass moves a million streaks).
    func runDeadlines(of streakIDs: [String], at now: Date, in db: Database) throws {
        let ids = try Self.jsonArray(streakIDs)
        let streaks = try StreakRecord.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM streak WHERE id IN (SELECT value FROM json_each(?))"),
            arguments: [ids])
        let members = try MemberRecord.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM member WHERE user_id IN (SELECT value FROM json_each(?))"),
            arguments: [try Self.jsonArray(streaks.flatMap(\.members))])
        var zones: [String: TimeZone] = [:]
        for member in members where zones[member.timeZone] == nil { zones[member.timeZone] = member.zone }
        let byUser = Dictionary(members.map { ($0.userId, $0) }, uniquingKeysWith: { first, _ in first })
        // Every counted snap of each streak after its last kept day: all its settling can ask.
        var senders: [String: Set<String>] = [:]
        let snaps = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT ss.streak_id, ss.local_date, ss.user_id FROM streak s
                    JOIN streak_snap ss ON ss.streak_id = s.id AND ss.user_id IN (s.user_a, s.user_b)
                                       AND ss.local_date > s.last_completed_date
                    WHERE s.id IN (SELECT value FROM json_each(?)) AND ss.ready = 1
                    """), arguments: [ids])
        while let row = try snaps.next() {
            senders[(row[0] as String) + " " + (row[1] as String), default: []].insert(row[2])
        }
        for var streak in streaks {
            let pair = Self.pair(of: streak, members: byUser, zones: zones)
            let (id, last) = (streak.id, streak.lastCompletedDate)
            var progress = streak.progress
            let effects = try progress.settle(at: now, pair: pair) { day in
                let date = day.description
                guard let last, date > last else { return try StreakSnapRecord.senders(in: id, on: day, in: db) }
                return senders[id + " " + date] ?? []
            }
            try commit(&streak, progress, effects: effects, pair: pair, at: now, in: db)
        }
    }

    /// `values` as a JSON array, for `json_each(?)`: a list bound as one argument.
    static func jsonArray(_ values: [String]) throws -> String {
        String(decoding: try JSONCoding.sharedEncoder.encode(values), as: UTF8.self)
    }

    /// Settles `streak` as of `now` and saves it (``commit(_:_:effects:pair:at:in:)``).
    func settle(_ streak: inout StreakRecord, at now: Date, in db: Database) throws {
        let pair = try Self.pair(of: streak, in: db)
        var progress = streak.progress
        let effects = try progress.settle(at: now, pair: pair) {
            try StreakSnapRecord.senders(in: streak.id, on: $0, in: db)
        }
        try commit(&streak, progress, effects: effects, pair: pair, at: now, in: db)
    }

    /// Saves `progress` into `streak`, sends the events its effects make (a kept day may earn
    /// tokens and reach a milestone), and schedules the
    /// streak's deadline job for its next check (or cancels it when nothing is left to lose).
    func commit(
        _ streak: inout StreakRecord, _ progress: StreakProgress, effects: [StreakProgress.Effect],
        pair: StreakPair, at now: Date, in db: Database
    ) throws {
        let before = streak
        streak.progress = progress
        if streak != before { try streak.updateProgress(db) }
        if !effects.isEmpty {
            let members = try Self.members(of: streak, known: pair.names)
            for effect in effects {
                switch effect {
                case .atRisk(let day, let closesAt, let waiting):
                    try outbox.enqueue(
                        StreakAtRisk(
                            streakId: streak.id, date: day.description, count: streak.count, closesAt: closesAt,
                            members: members, waitingFor: waiting), in: db)
                case .broken(let missed, let until):
                    try StreakBreakRecord(
                        streakId: streak.id, localDate: missed.day.description, count: missed.count, recovered: false
                    ).insertPrepared(db)
                    try outbox.enqueue(
                        StreakBroken(
                            streakId: streak.id, date: missed.day.description, count: missed.count,
                            longestCount: streak.longestCount, members: members, missedBy: missed.missedBy,
                            recoverableUntil: until), in: db)
                case .kept(let day, let count):
                    try Self.creditEarned(streak, day: day, count: count, at: now, in: db)
                    try reachMilestone(streak, day: day, count: count, members: members, at: now, in: db)
                case .recovered:
                    if let day = progress.lastBreak?.day.description {
                        try StreakBreakRecord.filter(key: ["streak_id": streak.id, "local_date": day])
                            .updateAll(db, StreakBreakRecord.Columns.recovered.set(to: true))
                    }
                }
            }
        }
        let key = streak.id
        if let next = progress.nextCheck(pair: pair) {
            try jobs.schedule(
                StreakDeadline.kind, key: key, payload: StreakDeadline.Job(streakId: key), at: next, onConflict: .move,
                in: db)
        } else {
            try jobs.cancel(StreakDeadline.kind, key: key, in: db)
        }
    }

    /// The pair's members with the zones their days close in.
    static func pair(of streak: StreakRecord, in db: Database) throws -> StreakPair {
        let members = try MemberRecord.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM member WHERE user_id IN (?, ?)"),
            arguments: [
                streak.userA, streak.userB,
            ])
        return pair(of: streak, members: Dictionary(uniqueKeysWithValues: members.map { ($0.userId, $0) }))
    }

    /// The pair's members with their zones, from members already read (`zones` by identifier,
    /// where known).
    static func pair(
        of streak: StreakRecord, members: [String: MemberRecord], zones: [String: TimeZone] = [:]
    ) -> StreakPair {
        var pair = StreakPair(members: streak.members, zones: [:])
        for user in streak.members {
            guard let member = members[user] else { continue }
            pair.zones[user] = zones[member.timeZone] ?? member.zone
            if let name = member.displayName { pair.names[user] = name }
        }
        return pair
    }

    /// Both members as notifications name them.
    static func members(of streak: StreakRecord, in db: Database) throws -> [StreakMember] {
        members(of: streak, known: try pair(of: streak, in: db).names)
    }

    /// Both members as notifications name them, from the names streak knows.
    static func members(of streak: StreakRecord, known names: [String: String]) -> [StreakMember] {
        streak.members.map { StreakMember(userId: $0, displayName: names[$0] ?? "Your friend") }
    }

    /// `streak` settled as of `now` without saving (a read), as `viewer` sees it.
    static func standing(
        of streak: StreakRecord, viewer: String, at now: Date, in db: Database
    ) throws
        -> StreakStanding
    {
        let pair = try pair(of: streak, in: db)
        var progress = streak.progress
        _ = try progress.settle(at: now, pair: pair) { try StreakSnapRecord.senders(in: streak.id, on: $0, in: db) }
        let today = LocalDay(now, in: pair.zone(of: viewer))
        let day = min(progress.dueDay ?? today, today)
        return StreakStanding(
            record: streak, progress: progress, pair: pair, day: day,
            snapped: try StreakSnapRecord.senders(in: streak.id, on: day, in: db), now: now)
    }
}
