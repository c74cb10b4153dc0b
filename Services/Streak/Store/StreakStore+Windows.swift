import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// The window job: one per user with a friend to snap with, keyed by the user id, due at the
/// next moment of their windows (today's opening, its closing reminder, tomorrow's opening).
enum SnapWindowJob {
    static let kind: JobKind = "streak.window"

    struct Job: Codable, Sendable {
        var userId: String
    }
}

/// Daily snap windows (``SnapWindowRule``): drawn once per user and local day, checked on every
/// snap while the operator enforces them, announced by the window job (`daily_window` when
/// one opens, `window_closing` 30 minutes before it closes if the user has not snapped yet).
extension StreakStore {
    /// `user`'s window for their local day as of `now`, drawn if it was not yet.
    func window(of user: String, at now: Date) async throws -> (SnapWindowRecord, MemberRecord) {
        try await database.tracedWrite { db in
            let member = try MemberRecord.find(user, in: db)
            return (try drawnWindow(of: member, on: LocalDay(now, in: member.zone), in: db), member)
        }
    }

    /// Sets `user`'s earliest hour (and zone, if given); the days already drawn keep their
    /// windows, except today's when it was drawn in another zone (a new user's first window,
    /// drawn in UTC when a friend accepted before they chose) and has neither opened nor seen
    /// a snap: it is drawn again in the user's zone. Returns today's window.
    func setWindow(
        earliestHour: Int, zone: TimeZone?, of user: String, at now: Date
    ) async throws
        -> (SnapWindowRecord, MemberRecord)
    {
        try await database.tracedWrite { db in
            let member = try MemberRecord.remember(user, zone: zone, earliestHour: earliestHour, at: now, in: db)
            let today = LocalDay(now, in: member.zone)
            if let drawn = try SnapWindowRecord.fetchOne(db, key: ["user_id": user, "local_date": today.description]),
                drawn.timeZone != member.timeZone, !drawn.openedSent, now < drawn.opensAt,
                try SnapRecord.filter(
                    SnapRecord.Columns.userId == user && SnapRecord.Columns.localDate == today.description
                ).isEmpty(db)
            {
                try drawn.delete(db)
            }
            let window = try drawnWindow(of: member, on: today, in: db)
            try planWindow(for: user, at: now, in: db)
            return (window, member)
        }
    }

    /// The window of `member` on `day`: the one drawn before, else a new draw in their zone.
    func drawnWindow(of member: MemberRecord, on day: LocalDay, in db: Database) throws -> SnapWindowRecord {
        if let drawn = try SnapWindowRecord.fetchOne(
            db, key: ["user_id": member.userId, "local_date": day.description])
        {
            return drawn
        }
        let random = entropy.bytes(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let rule = SnapWindowRule.draw(day: day, zone: member.zone, earliestHour: member.earliestHour, random: random)
        let record = SnapWindowRecord(
            userId: member.userId, localDate: day.description, timeZone: member.timeZone, opensAt: rule.opensAt,
            closesAt: rule.closesAt, openedSent: false, closingSent: false)
        try record.insert(db)
        return record
    }

    /// Refuses a snap `user` sends at `now` from `zone` outside their window of that day and
    /// its grace (403 `OUTSIDE_SNAP_WINDOW`), while the operator enforces windows. The window is
    /// drawn (and kept) in its own transaction, so a refused snap leaves it as drawn.
    func checkWindow(of user: String, zone: TimeZone, at now: Date) async throws {
        guard settings.windowsEnforced else { return }
        let window = try await database.tracedWrite { db in
            var member = try MemberRecord.find(user, in: db)
            member.timeZone = zone.identifier
            return try drawnWindow(of: member, on: LocalDay(now, in: zone), in: db)
        }
        guard !window.rule.accepts(now) else { return }
        let zone = TimeZone(identifier: window.timeZone) ?? zone
        let from = window.opensAt.addingTimeInterval(-SnapWindowRule.grace)
        let until = window.closesAt.addingTimeInterval(SnapWindowRule.grace)
        throw ServiceError(
            .outsideSnapWindow,
            "Today's snap window is \(Self.clock(window.opensAt, zone))–\(Self.clock(window.closesAt, zone)) "
                + "(\(zone.identifier)); snaps are accepted from \(Self.clock(from, zone)) to \(Self.clock(until, zone))."
        )
    }

    /// `HH:mm` of `instant` in `zone`.
    private static func clock(_ instant: Date, _ zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let parts = calendar.dateComponents([.hour, .minute], from: instant)
        return String(format: "%02d:%02d", parts.hour!, parts.minute!)
    }

    /// Schedules `user`'s window job for its next moment (``nextWindowMoment(of:at:in:)``), or
    /// cancels it when they have no friend left to snap with.
    func planWindow(for user: String, at now: Date, in db: Database) throws {
        guard let next = try nextWindowMoment(of: user, at: now, in: db) else {
            try jobs.cancel(SnapWindowJob.kind, key: user, in: db)
            return
        }
        try jobs.schedule(
            SnapWindowJob.kind, key: user, payload: SnapWindowJob.Job(userId: user), at: next, onConflict: .move, in: db
        )
    }

    /// When `user`'s window job must look next: today's opening or closing reminder while not
    /// done, else tomorrow's opening; nil without a friend.
    func nextWindowMoment(of user: String, at now: Date, in db: Database) throws -> Date? {
        guard try !StreakRecord.all().of(user).ofFriends().isEmpty(db) else { return nil }
        let member = try MemberRecord.find(user, in: db)
        let today = LocalDay(now, in: member.zone)
        let window = try drawnWindow(of: member, on: today, in: db)
        if now < window.closesAt {
            if !window.openedSent { return window.opensAt }
            if !window.closingSent { return window.rule.closingReminder }
        }
        return try drawnWindow(of: member, on: today.next, in: db).opensAt
    }

    /// The window job's work: announces today's window when it has opened, reminds 30 minutes
    /// before it closes, neither once the user has snapped today or the window is over, then
    /// schedules the next moment.
    func runWindow(of user: String, at now: Date, in db: Database) throws {
        let friends = try StreakRecord.all().of(user).ofFriends().fetchAll(db)
        guard !friends.isEmpty else { return }
        let member = try MemberRecord.find(user, in: db)
        let today = LocalDay(now, in: member.zone)
        var window = try drawnWindow(of: member, on: today, in: db)
        let before = window
        let snapped = try !SnapRecord.filter(
            SnapRecord.Columns.userId == user && SnapRecord.Columns.localDate == today.description
        ).isEmpty(db)
        let live = now < window.closesAt && !snapped
        if now >= window.opensAt, !window.openedSent {
            window.openedSent = true
            if live {
                let prompt = try prompt(of: user, on: today, in: db)
                try outbox.enqueue(
                    StreakWindowOpened(
                        userId: user, date: today.description, closesAt: window.closesAt, prompt: prompt.text,
                        partner: try Self.waitingName(for: user, in: friends, in: db)), in: db)
            }
        }
        if now >= window.rule.closingReminder, !window.closingSent {
            window.closingSent = true
            if live {
                try outbox.enqueue(
                    StreakWindowClosing(userId: user, date: today.description, closesAt: window.closesAt), in: db)
            }
        }
        if window != before { try window.update(db) }
        try planWindow(for: user, at: now, in: db)
    }

    /// Who the daily window says is waiting: the friend's name, or "N friends".
    private static func waitingName(for user: String, in streaks: [StreakRecord], in db: Database) throws -> String {
        let partners = Set(streaks.map { $0.partner(of: user) })
        guard partners.count == 1, let partner = partners.first else { return "\(partners.count) friends" }
        return try MemberRecord.fetchOne(db, key: partner)?.displayName ?? "Your friend"
    }
}
