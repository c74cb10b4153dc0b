import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

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
    /// The friend as a view, where a list asked for it (``StreakStore/withFriends(_:viewer:in:)``).
    var friend: PersonView?

    func contract(viewer: String) -> Streak {
        var streak = record.contract(viewer: viewer, progress: progress, pair: pair, snapped: snapped, now: now)
        streak.friend = friend
        return streak
    }
}

/// Moving streaks through time: the deadline job, and every write that touches a streak,
/// settle it first (``StreakProgress/settle(at:pair:snapped:)``); reads settle a copy, so a
/// streak read after a missed day agrees with what the job does.
extension StreakStore {
    /// The deadline job's work for a group of streaks, planned in a read transaction before the
    /// writer is taken: each streak settled as of `now`, with the events it sends encoded. The
    /// writer (``runDeadlines(_:in:)``) then only checks and saves, so the nightly pass settles
    /// one group while the writer saves the last.
    func planDeadlines(of streakIDs: [String], at now: Date) async throws -> DeadlinePlan {
        try await database.tracedRead { db in
            let group = try DeadlineGroup(streakIDs, in: db)
            var plan = DeadlinePlan(ids: streakIDs, now: now)
            for var streak in group.streaks {
                let read = streak
                let pair = Self.pair(of: streak, members: group.members, zones: group.zones)
                var progress = streak.progress
                let effects = try group.settle(&progress, of: streak, at: now, pair: pair, in: db)
                streak.progress = progress
                let members = Self.members(of: streak, known: pair.names)
                var events: [(PreparedEvent, StreakBreakRecord?)]? = []
                for effect in effects {
                    guard let event = try prepare(effect, of: streak, members: members) else {
                        events = nil  // a kept day or a recovery reads the store: settled in the writer
                        break
                    }
                    events?.append(event)
                }
                plan.streaks[streak.id] = DeadlinePlan.Settled(
                    read: read, snaps: group.snaps[streak.id] ?? [],
                    writes: try events.map { events in
                        DeadlinePlan.Writes(
                            saved: streak == read ? nil : streak, events: events,
                            next: progress.nextCheck(pair: pair),
                            payload: try JSONCoding.sharedEncoder.encode(StreakDeadline.Job(streakId: streak.id)))
                    })
            }
            return plan
        }
    }

    /// Saves what `plan` settled, in the transaction that completes the group's jobs. A streak
    /// whose row or counted snaps changed since the plan read them (a snap just posted), or
    /// whose settling reads the store, is settled again here.
    func runDeadlines(_ plan: DeadlinePlan, in db: Database) throws {
        let current = try DeadlineGroup(plan.ids, in: db, members: false)
        var again: [String] = []
        for streak in current.streaks {
            guard let settled = plan.streaks[streak.id], let writes = settled.writes, settled.read == streak,
                settled.snaps == current.snaps[streak.id] ?? []
            else {
                again.append(streak.id)
                continue
            }
            try writes.saved?.updateProgress(db)
            for (event, missed) in writes.events {
                try missed?.insertPrepared(db)
                try outbox.store(event, in: db)
            }
            try scheduleDeadline(of: streak.id, at: writes.next, payload: writes.payload, in: db)
        }
        if !again.isEmpty { try runDeadlines(of: again, at: plan.now, in: db) }
    }

    /// The deadline job's work for a group of streaks, all of it in the transaction that
    /// completes them: each is settled and saved as ``settle(_:at:in:)`` does, with the group's
    /// streaks, members and snaps read by one query each.
    func runDeadlines(of streakIDs: [String], at now: Date, in db: Database) throws {
        let group = try DeadlineGroup(streakIDs, in: db)
        for var streak in group.streaks {
            let pair = Self.pair(of: streak, members: group.members, zones: group.zones)
            var progress = streak.progress
            let effects = try group.settle(&progress, of: streak, at: now, pair: pair, in: db)
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
            let members = Self.members(of: streak, known: pair.names)
            for effect in effects {
                if let (event, missed) = try prepare(effect, of: streak, members: members) {
                    try missed?.insertPrepared(db)
                    try outbox.store(event, in: db)
                    continue
                }
                switch effect {
                case .kept(let day, let count):
                    try Self.creditEarned(streak, day: day, count: count, at: now, in: db)
                    try reachMilestone(streak, day: day, count: count, members: members, at: now, in: db)
                case .recovered:
                    if let day = progress.lastBreak?.day.description {
                        try StreakBreakRecord.filter(key: ["streak_id": streak.id, "local_date": day])
                            .updateAll(db, StreakBreakRecord.Columns.recovered.set(to: true))
                    }
                case .atRisk, .broken: break
                }
            }
        }
        let payload = try JSONCoding.sharedEncoder.encode(StreakDeadline.Job(streakId: streak.id))
        try scheduleDeadline(of: streak.id, at: progress.nextCheck(pair: pair), payload: payload, in: db)
    }

    /// The event an at-risk or broken effect sends (with the break row a break adds), encoded
    /// without the store; nil for the effects that write more than that (a kept day, a recovery).
    func prepare(
        _ effect: StreakProgress.Effect, of streak: StreakRecord, members: [StreakMember]
    ) throws -> (PreparedEvent, StreakBreakRecord?)? {
        switch effect {
        case .atRisk(let day, let closesAt, let waiting):
            let event = StreakAtRisk(
                streakId: streak.id, date: day.description, count: streak.count, closesAt: closesAt, members: members,
                waitingFor: waiting)
            return (try outbox.prepare(event), nil)
        case .broken(let missed, let until):
            let event = StreakBroken(
                streakId: streak.id, date: missed.day.description, count: missed.count,
                longestCount: streak.longestCount, members: members, missedBy: missed.missedBy, recoverableUntil: until)
            let row = StreakBreakRecord(
                streakId: streak.id, localDate: missed.day.description, count: missed.count, recovered: false)
            return (try outbox.prepare(event), row)
        case .kept, .recovered:
            return nil
        }
    }

    /// Moves the streak's deadline job to `next`, or cancels it when nothing is left to lose.
    func scheduleDeadline(of id: String, at next: Date?, payload: Data, in db: Database) throws {
        if let next {
            try jobs.schedule(
                StreakDeadline.kind, key: id, encodedPayload: payload, at: next, onConflict: .move, in: db)
        } else {
            try jobs.cancel(StreakDeadline.kind, key: id, in: db)
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

/// A group of deadline jobs settled outside the writer (``StreakStore/planDeadlines(of:at:)``).
struct DeadlinePlan: Sendable {
    let ids: [String]
    let now: Date
    var streaks: [String: Settled] = [:]

    /// One streak as the plan read it, and what to save if it is still so.
    struct Settled: Sendable {
        var read: StreakRecord
        /// Its counted snaps after its last kept day, as `"date user"`.
        var snaps: Set<String>
        /// Nil when its settling writes more than a row and events (a kept day, a recovery).
        var writes: Writes?
    }

    struct Writes: Sendable {
        /// The row to save; nil when settling left it as it was.
        var saved: StreakRecord?
        var events: [(PreparedEvent, StreakBreakRecord?)]
        /// The deadline job's next run; nil: nothing left to lose, the job goes.
        var next: Date?
        var payload: Data
    }
}

/// What the deadline job reads for a group of streaks, one query per table: the streaks, their
/// members with their zones, and each streak's counted snaps after its last kept day.
struct DeadlineGroup {
    var streaks: [StreakRecord]
    var members: [String: MemberRecord] = [:]
    var zones: [String: TimeZone] = [:]
    /// Per streak, `"date user"` for each counted snap after its last kept day.
    var snaps: [String: Set<String>] = [:]

    init(_ streakIDs: [String], in db: Database, members readMembers: Bool = true) throws {
        let ids = try StreakStore.jsonArray(streakIDs)
        streaks = try StreakRecord.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM streak WHERE id IN (SELECT value FROM json_each(?))"),
            arguments: [ids])
        if readMembers {
            let rows = try MemberRecord.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM member WHERE user_id IN (SELECT value FROM json_each(?))"),
                arguments: [try StreakStore.jsonArray(streaks.flatMap(\.members))])
            for member in rows where zones[member.timeZone] == nil { zones[member.timeZone] = member.zone }
            members = Dictionary(rows.map { ($0.userId, $0) }, uniquingKeysWith: { first, _ in first })
        }
        let snaps = try Row.fetchCursor(
            db.cachedStatement(
                sql: """
                    SELECT ss.streak_id, ss.local_date, ss.user_id FROM streak s
                    JOIN streak_snap ss ON ss.streak_id = s.id AND ss.user_id IN (s.user_a, s.user_b)
                                       AND ss.local_date > s.last_completed_date
                    WHERE s.id IN (SELECT value FROM json_each(?)) AND ss.ready = 1
                    """), arguments: [ids])
        while let row = try snaps.next() {
            self.snaps[row[0], default: []].insert((row[1] as String) + " " + (row[2] as String))
        }
    }

    /// Settles `progress` of `streak` as of `now`: the group's snaps answer for the days after
    /// its last kept day, the store for the (rare) days before.
    func settle(
        _ progress: inout StreakProgress, of streak: StreakRecord, at now: Date, pair: StreakPair, in db: Database
    ) throws -> [StreakProgress.Effect] {
        let (id, last) = (streak.id, streak.lastCompletedDate)
        let counted = snaps[id] ?? []
        return try progress.settle(at: now, pair: pair) { day in
            let date = day.description
            guard let last, date > last else { return try StreakSnapRecord.senders(in: id, on: day, in: db) }
            var senders: Set<String> = []
            for user in streak.members where counted.contains(date + " " + user) { senders.insert(user) }
            return senders
        }
    }
}
