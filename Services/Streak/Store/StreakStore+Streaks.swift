import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Streaks, the snaps sent into them, and their recovery.
extension StreakStore {
    /// `user`'s streaks, newest first, each settled as of `now`.
    func streaks(
        of user: String, after position: TimePosition?, limit: Int, at now: Date
    ) async throws
        -> [StreakStanding]
    {
        try await database.tracedRead { db in
            try withFriends(
                try TimePosition.newestFirst(
                    StreakRecord.self, "SELECT * FROM streak WHERE (user_a = ? OR user_b = ?)",
                    arguments: [user, user],
                    after: position, limit: limit, in: db
                ).map {
                    try Self.standing(of: $0, viewer: user, at: now, in: db)
                }, viewer: user, in: db)
        }
    }

    /// One of `user`'s streaks settled as of `now`, or nil (someone else's is not found).
    func streak(id: String, of user: String, at now: Date) async throws -> StreakStanding? {
        try await database.tracedRead { db in
            try StreakRecord.filter(key: id).of(user).fetchOne(db).map {
                try withFriends([try Self.standing(of: $0, viewer: user, at: now, in: db)], viewer: user, in: db)[0]
            }
        }
    }

    /// Records `snap` into the streaks named by `targets` (nil: every streak with a friend not
    /// yet snapped for the snap's day). Each streak is settled, its day counted once both have
    /// a snap for it whose media is ready (`ready`: this one's is), and the partner told
    /// (`streak.snapped`); the sender's zone becomes the one their days close in. Where the
    /// partner has already snapped for the day, each may now read the other's media (mutual
    /// reveal, through `media.attached`). A streak named twice for one day, or that is not
    /// theirs, refuses the whole snap. Returns the streaks it went into, as they now stand.
    func snap(
        _ snap: SnapRecord, ready: Bool, into targets: [String]?, zone: TimeZone, at now: Date,
        described: MediaDescribed? = nil
    ) async throws
        -> (SnapRecord, [StreakStanding])
    {
        try await database.tracedWrite { db in
            // What media answered of the photo: friends' cards show it before `media.described`.
            if let described { _ = try MediaMirror.apply(described, in: db) }
            let user = snap.userId
            var snap = snap
            let (day, dayZone) = LocalDay.counted(at: now, in: zone, after: try Self.lastCountedDay(of: user, in: db))
            snap.localDate = day.description
            snap.timeZone = dayZone.identifier
            // The zone the user's days are counted in: their deadlines, prompts and calendar
            // follow it (a phone moved east joins its new zone's days once a day is missed).
            try MemberRecord.remember(user, zone: dayZone, at: now, in: db)
            let sent = { (streak: StreakRecord) in
                try StreakSnapRecord.filter(key: [
                    "streak_id": streak.id, "user_id": user, "local_date": snap.localDate,
                ]).isEmpty(db) == false
            }
            var streaks: [StreakRecord]
            if let targets {
                streaks = try StreakRecord.filter(keys: targets).of(user).ofFriends().fetchAll(db)
                guard streaks.count == Set(targets).count else { throw ServiceError.notFound("Streak") }
                if try streaks.contains(where: sent) {
                    throw ServiceError(.conflict, "You already snapped for \(snap.localDate) in one of these streaks.")
                }
            } else {
                streaks = try StreakRecord.all().of(user).ofFriends().fetchAll(db).filter { try !sent($0) }
                guard !streaks.isEmpty else {
                    throw ServiceError(
                        .conflict, "Every one of your streaks already has your snap for \(snap.localDate).")
                }
            }
            try snap.insert(db)
            try planWindow(for: user, at: now, in: db)
            let sender = try Self.members(of: streaks[0], in: db).first { $0.userId == user }!
            var readers: [String] = []
            let standings = try streaks.map { streak in
                var streak = streak
                try settle(&streak, at: now, in: db)
                try StreakSnapRecord(
                    streakId: streak.id, userId: user, localDate: snap.localDate, snapId: snap.id, ready: ready,
                    createdAt: now
                ).insert(db)
                try keep(day, of: &streak, at: now, in: db)
                let partner = streak.partner(of: user)
                if let theirs = try StreakSnapRecord.fetchOne(
                    db, key: ["streak_id": streak.id, "user_id": partner, "local_date": snap.localDate]),
                    let media = try SnapRecord.fetchOne(db, key: theirs.snapId)?.mediaId
                {
                    readers.append(partner)
                    try outbox.enqueue(
                        MediaAttached(
                            mediaId: media, ownerId: partner, visibility: .private, referenceType: "snap",
                            referenceId: theirs.snapId, readers: [user]), in: db)
                }
                try outbox.enqueue(
                    StreakSnapped(streakId: streak.id, snapId: snap.id, from: sender, toUserId: partner), in: db)
                return try Self.standing(of: streak, viewer: user, at: now, in: db)
            }
            // Media learns the reference (so `media.ready` or `media.rejected` comes back) and
            // who may read it already.
            try outbox.enqueue(
                MediaAttached(
                    mediaId: snap.mediaId, ownerId: user, visibility: .private, referenceType: "snap",
                    referenceId: snap.id, readers: readers), in: db)
            return (snap, standings)
        }
    }

    /// The latest day `user`'s snaps counted for, and the zone it was counted in.
    static func lastCountedDay(of user: String, in db: Database) throws -> (day: LocalDay, zone: TimeZone)? {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: "SELECT local_date, time_zone FROM snap WHERE user_id = ? ORDER BY local_date DESC LIMIT 1"),
                arguments: [user]),
            let day = LocalDay(row["local_date"] as String), let zone = TimeZone(identifier: row["time_zone"])
        else { return nil }
        return (day, zone)
    }

    /// Counts `day` for `streak` (settled already) if both have a snap for it that counts.
    func keep(_ day: LocalDay, of streak: inout StreakRecord, at now: Date, in db: Database) throws {
        guard try StreakSnapRecord.senders(in: streak.id, on: day, in: db).count == 2 else { return }
        var progress = streak.progress
        let effects = progress.keep(day)
        try commit(&streak, progress, effects: effects, pair: try Self.pair(of: streak, in: db), at: now, in: db)
    }

    /// Spends one of `user`'s recovery tokens on one of their streaks
    /// (``StreakProgress/recover(at:pair:snapped:)``). A streak that cannot be recovered is a
    /// 409 (`RECOVERY_UNAVAILABLE`) whatever the balance; no token is a 402
    /// (`NO_RECOVERY_TOKENS`). A Pro user's monthly tokens are credited first.
    func recover(streakID: String, by user: String, premium: Bool, at now: Date) async throws -> StreakStanding {
        try await database.tracedWrite { db in
            guard var streak = try StreakRecord.filter(key: streakID).of(user).fetchOne(db) else {
                throw ServiceError.notFound("Streak")
            }
            try settle(&streak, at: now, in: db)
            let pair = try Self.pair(of: streak, in: db)
            var progress = streak.progress
            let effects: [StreakProgress.Effect]
            do {
                effects = try progress.recover(at: now, pair: pair) {
                    try StreakSnapRecord.senders(in: streak.id, on: $0, in: db)
                }
            } catch let refusal as StreakProgress.RecoveryRefusal {
                throw ServiceError(.recoveryUnavailable, refusal.message)
            }
            if premium { try Self.creditMonthly(user, at: now, in: db) }
            guard try Self.balance(of: user, in: db) > 0 else {
                throw ServiceError(.noRecoveryTokens, "You have no recovery tokens left.")
            }
            try RecoveryTokenRecord(
                id: "used:\(streak.id):\(streak.brokenDay ?? "")", userId: user, delta: -1,
                reason: RecoveryTransactionType.used.rawValue, streakId: streak.id, createdAt: now
            ).insert(db)
            try commit(&streak, progress, effects: effects, pair: pair, at: now, in: db)
            return try Self.standing(of: streak, viewer: user, at: now, in: db)
        }
    }
}

extension StreakProgress.RecoveryRefusal {
    var message: String {
        switch self {
        case .notBroken: "This streak was not broken by a missed day: there is nothing to recover."
        case .alreadyUsed: "This streak's one recovery is already spent."
        case .windowClosed: "Too late: a streak can be recovered only until the day after the missed one ends."
        }
    }
}
