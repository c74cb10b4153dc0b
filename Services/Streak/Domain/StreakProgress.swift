import Contracts
import Foundation

/// The two people of a streak and their time zones: when a streak day closes for them.
struct StreakPair: Sendable {
    /// Both user ids, in stored order.
    let members: [String]
    var zones: [String: TimeZone]
    /// Display names where streak knows them (for the events the pair's changes make).
    var names: [String: String] = [:]

    /// When `day` closes for the pair: its end in the later of the two zones, the last moment
    /// either of them can still snap for it.
    func closes(_ day: LocalDay) -> Date {
        members.map { day.end(in: zone(of: $0)) }.max()!
    }

    /// When `day` becomes at risk: two hours before it ends in the earlier of the two zones,
    /// so the one whose day ends first is warned while they can still act.
    func atRisk(_ day: LocalDay) -> Date {
        members.map { day.end(in: zone(of: $0)) }.min()!.addingTimeInterval(-StreakProgress.atRiskLead)
    }

    func zone(of user: String) -> TimeZone { zones[user] ?? TimeZone(identifier: "UTC")! }
}

/// Where a pair's streak stands, and the rules that move it. Pure: the store loads it from a
/// `streak` row, applies it with the pair's snaps, and saves it; tests drive it with any clock.
///
/// The model (docs/ARCHITECTURE.md, "Streak days"):
/// - A day `D` is complete once both have a snap for `D`, each `D` in their own time zone.
/// - With a count to lose, the due day is the day after the last kept one. Two hours before it
///   ends for the earlier zone it is at risk (both are told, once); when it closes (its end in
///   the later zone) incomplete, the streak breaks: count 0, the break remembered.
/// - A day completed on a broken (or new) streak starts the count at 1.
/// - Once per streak, until the day after the missed one closes, a recovery restores the count
///   it had plus the days kept since; the missed day is bridged.
/// - A moderator's suspension or ban of either breaks it at once (``forfeit(_:by:on:)``), and no
///   recovery brings that count back.
struct StreakProgress: Equatable, Sendable {
    static let atRiskLead: TimeInterval = 2 * 3600

    /// A missed day that broke the streak.
    struct Break: Equatable, Sendable {
        var day: LocalDay
        /// The count it had.
        var count: Int
        var missedBy: [String]
    }

    /// What a change did, for the events it sends.
    enum Effect: Equatable, Sendable {
        case kept(LocalDay, count: Int)
        case atRisk(LocalDay, closesAt: Date, waitingFor: [String])
        case broken(Break, recoverableUntil: Date?)
        case recovered(count: Int)
    }

    /// A moderator's decision that broke the streak (its `broken_reason`).
    enum Forfeit: String, Equatable, Sendable {
        case suspended, banned
    }

    /// Why a recovery is refused.
    enum RecoveryRefusal: Error, Equatable {
        case notBroken, alreadyUsed, windowClosed
    }

    var status: StreakStatus
    var count: Int
    var longest: Int
    /// The last day that kept the streak: completed, or bridged by a recovery.
    var lastKept: LocalDay?
    /// The last break (kept after the count starts again, for its recovery window).
    var lastBreak: Break?
    var recoveryUsed: Bool
    /// The day an at-risk warning went out for.
    var warned: LocalDay?
    /// The pair are no longer friends (a block, or unfriending): nothing moves it.
    var ended: Bool
    /// The last break was a moderator's, not a missed day: it cannot be recovered.
    var forfeit: Forfeit? = nil

    /// The day both must snap for next, while there is a count to lose.
    var dueDay: LocalDay? {
        status == .active && count > 0 && !ended ? lastKept?.next : nil
    }

    /// Applies what time did by `now`: counts a due day both snapped for, warns once when it is
    /// at risk, breaks the streak when it closed incomplete. `snapped(day)` answers who has a
    /// snap for `day` in this streak. Running it again at the same `now` changes nothing.
    mutating func settle(
        at now: Date, pair: StreakPair, snapped: (LocalDay) throws -> Set<String>
    ) rethrows -> [Effect] {
        var effects: [Effect] = []
        while let due = dueDay {
            let done = try snapped(due)
            let waiting = pair.members.filter { !done.contains($0) }
            if waiting.isEmpty {
                effects += keep(due)
                continue
            }
            let closes = pair.closes(due)
            if now >= closes {
                let missed = Break(day: due, count: count, missedBy: waiting)
                lastBreak = missed
                forfeit = nil
                status = .broken
                count = 0
                let until = recoverableUntil(pair: pair).flatMap { $0 > now ? $0 : nil }
                effects.append(.broken(missed, recoverableUntil: until))
            } else if now >= pair.atRisk(due), warned != due {
                warned = due
                effects.append(.atRisk(due, closesAt: closes, waitingFor: waiting))
            }
            break
        }
        return effects
    }

    /// Counts `day`, which both have snapped for (call ``settle(at:pair:snapped:)`` first): one
    /// more when it follows the last kept day of an active streak, 1 otherwise. A day already
    /// counted, not after the last break, or other than the due day while one is due (it
    /// counts when the due day does) changes nothing.
    mutating func keep(_ day: LocalDay) -> [Effect] {
        guard !ended else { return [] }
        if let due = dueDay, day != due { return [] }
        if let last = lastKept, day <= last { return [] }
        if status == .broken, let lastBreak, day <= lastBreak.day { return [] }
        count = status == .active && count > 0 && lastKept == day.previous ? count + 1 : 1
        status = .active
        lastKept = day
        longest = max(longest, count)
        return [.kept(day, count: count)]
    }

    /// Breaks the streak for a moderator's suspension or ban of `user` (call
    /// ``settle(at:pair:snapped:)`` first): the count is lost on `day` (the due day, or the
    /// user's today when none is due), with no recovery; the two stay friends, and a day both
    /// complete later starts a new count. Nothing happens without a count to lose.
    mutating func forfeit(_ reason: Forfeit, by user: String, on day: LocalDay) -> [Effect] {
        guard !ended, status == .active, count > 0 else { return [] }
        let lost = Break(day: dueDay ?? day, count: count, missedBy: [user])
        lastBreak = lost
        forfeit = reason
        status = .broken
        count = 0
        return [.broken(lost, recoverableUntil: nil)]
    }

    /// Until when a recovery can restore the last break: the close of the day after the missed
    /// one, if the recovery is not spent and the count has not grown past that day since (never
    /// for a moderator's break).
    func recoverableUntil(pair: StreakPair) -> Date? {
        guard !ended, !recoveryUsed, forfeit == nil, let lastBreak, lastBreak.count > 0 else { return nil }
        guard status == .broken || lastKept == lastBreak.day.next else { return nil }
        return pair.closes(lastBreak.day.next)
    }

    /// Restores the last break: its count plus the days kept since (at most the one after the
    /// missed day), the missed day bridged; then settles as of `now`.
    mutating func recover(
        at now: Date, pair: StreakPair, snapped: (LocalDay) throws -> Set<String>
    ) throws -> [Effect] {
        guard !ended, forfeit == nil, let lastBreak, lastBreak.count > 0 else { throw RecoveryRefusal.notBroken }
        guard !recoveryUsed else { throw RecoveryRefusal.alreadyUsed }
        guard let until = recoverableUntil(pair: pair), now < until else { throw RecoveryRefusal.windowClosed }
        if status == .broken {
            count = lastBreak.count
            lastKept = lastBreak.day
            status = .active
        } else {
            count += lastBreak.count
        }
        longest = max(longest, count)
        recoveryUsed = true
        return [.recovered(count: count)] + (try settle(at: now, pair: pair, snapped: snapped))
    }

    /// When the deadline job must look again: at the due day's at-risk time if its warning has
    /// not gone out, else at its close; nil with nothing to lose.
    func nextCheck(pair: StreakPair) -> Date? {
        guard let due = dueDay else { return nil }
        return warned == due ? pair.closes(due) : pair.atRisk(due)
    }
}
