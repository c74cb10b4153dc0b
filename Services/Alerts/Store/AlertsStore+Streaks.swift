import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Streak events: what each makes and for whom, in the catalog's words.
extension AlertsStore {
    /// `streak.at_risk` → "Your N-day streak with X expires in H hours!" for both of the pair.
    static func streakAtRisk(_ envelope: EventEnvelope<StreakAtRisk>, jobs: JobQueue, in db: Database) throws {
        let event = envelope.payload
        let hours = max(1, Int((event.closesAt.timeIntervalSince(envelope.occurredAt) / 3600).rounded()))
        for (member, partner) in pairs(event.members) {
            try insert(
                .streakAtRisk, for: member.userId, values: ["partner": partner.displayName, "hours": "\(hours)"],
                data: [
                    "streakId": event.streakId, "date": event.date, "count": "\(event.count)",
                    "waitingFor": event.waitingFor.joined(separator: ","),
                ],
                actor: nil, event: envelope.header, shared: true, jobs: jobs, in: db)
        }
    }

    /// `streak.broken` → "Your N-day streak with X ended…" for both of the pair.
    static func streakBroken(_ envelope: EventEnvelope<StreakBroken>, jobs: JobQueue, in db: Database) throws {
        let event = envelope.payload
        for (member, partner) in pairs(event.members) {
            var data = [
                "streakId": event.streakId, "date": event.date, "count": "\(event.count)",
                "longestCount": "\(event.longestCount)", "missedBy": event.missedBy.joined(separator: ","),
            ]
            if let until = event.recoverableUntil { data["recoverableUntil"] = until.formatted(.iso8601) }
            try insert(
                .streakBroken, for: member.userId, values: ["partner": partner.displayName], data: data,
                actor: nil, event: envelope.header, shared: true, jobs: jobs, in: db)
        }
    }

    /// `streak.snapped` → "X sent a snap in your streak 🔥" for the partner.
    static func streakSnapped(_ envelope: EventEnvelope<StreakSnapped>, jobs: JobQueue, in db: Database) throws {
        let event = envelope.payload
        try insert(
            .streakSnap, for: event.toUserId, values: [:],
            data: ["streakId": event.streakId, "snapId": event.snapId, "userId": event.from.userId],
            actor: (event.from.userId, event.from.displayName), event: envelope.header, jobs: jobs, in: db)
    }

    /// `streak.nudged` → "👉 X nudged you" for the friend.
    static func streakNudged(_ envelope: EventEnvelope<StreakNudged>, jobs: JobQueue, in db: Database) throws {
        let event = envelope.payload
        try insert(
            .nudge, for: event.toUserId, values: [:], data: ["streakId": event.streakId, "userId": event.from.userId],
            actor: (event.from.userId, event.from.displayName), event: envelope.header, jobs: jobs, in: db)
    }

    /// `streak.window_opened` → "📸 Time to snap! {prompt} — {partner} is waiting!"
    static func windowOpened(_ envelope: EventEnvelope<StreakWindowOpened>, jobs: JobQueue, in db: Database) throws {
        let event = envelope.payload
        try insert(
            .dailyWindow, for: event.userId, values: ["prompt": event.prompt, "partner": event.partner],
            data: ["date": event.date, "closesAt": event.closesAt.formatted(.iso8601)], actor: nil,
            event: envelope.header, jobs: jobs, in: db)
    }

    /// `streak.window_closing` → "⏳ Your snap window closes soon".
    static func windowClosing(_ envelope: EventEnvelope<StreakWindowClosing>, jobs: JobQueue, in db: Database) throws {
        let event = envelope.payload
        try insert(
            .windowClosing, for: event.userId, values: [:],
            data: ["date": event.date, "closesAt": event.closesAt.formatted(.iso8601)], actor: nil,
            event: envelope.header, jobs: jobs, in: db)
    }

    /// `streak.milestone` → "🔥 N-day streak! You and X hit N days!" for both of the pair.
    static func streakMilestone(
        _ envelope: EventEnvelope<StreakMilestoneReached>, jobs: JobQueue, in db: Database
    ) throws {
        let event = envelope.payload
        for (member, partner) in pairs(event.members) {
            try insert(
                .streakMilestone, for: member.userId,
                values: ["partner": partner.displayName, "count": "\(event.count)"],
                data: [
                    "streakId": event.streakId, "count": "\(event.count)", "date": event.date,
                    "earnedToken": "\(event.earnedToken)",
                ],
                actor: nil, event: envelope.header, shared: true, jobs: jobs, in: db)
        }
    }

    /// Each member with the other one.
    private static func pairs(_ members: [StreakMember]) -> [(StreakMember, StreakMember)] {
        guard members.count == 2 else { return [] }
        return [(members[0], members[1]), (members[1], members[0])]
    }
}
