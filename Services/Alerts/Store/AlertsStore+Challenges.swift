import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Challenge events: their activity types, with their deep links.
extension AlertsStore {
    /// `challenge.created` → `challenge_received` "X challenged you" for the opponent.
    static func challengeCreated(_ envelope: EventEnvelope<ChallengeCreated>, jobs: JobQueue, in db: Database) throws {
        let event = envelope.payload
        var data = ["challengeId": event.challengeId, "deadline": event.deadline.formatted(.iso8601)]
        if let trick = event.trick { data["trick"] = trick }
        try insert(
            .challengeReceived, for: event.opponentId, values: [:], data: data,
            actor: (event.creator.userId, event.creator.displayName), event: envelope.header, jobs: jobs, in: db)
    }

    /// `challenge.accepted` → `challenge_accepted` for the creator.
    static func challengeAccepted(
        _ envelope: EventEnvelope<ChallengeAccepted>, jobs: JobQueue, in db: Database
    ) throws {
        let event = envelope.payload
        try insert(
            .challengeAccepted, for: event.creatorId, values: [:], data: ["challengeId": event.challengeId],
            actor: (event.opponent.userId, event.opponent.displayName), event: envelope.header, jobs: jobs, in: db)
    }

    /// `challenge.clip_ready` → `opponent_uploaded` "X posted their clip" for the other participant.
    static func challengeClipReady(
        _ envelope: EventEnvelope<ChallengeClipReady>, jobs: JobQueue, in db: Database
    ) throws {
        let event = envelope.payload
        try insert(
            .opponentUploaded, for: event.toUserId, values: [:], data: ["challengeId": event.challengeId],
            actor: (event.uploader.userId, event.uploader.displayName), event: envelope.header, jobs: jobs, in: db)
    }

    /// `challenge.voting_started` → `voting_started` for both participants.
    static func challengeVotingStarted(
        _ envelope: EventEnvelope<ChallengeVotingStarted>, jobs: JobQueue, in db: Database
    ) throws {
        let event = envelope.payload
        for participant in event.participants {
            try insert(
                .votingStarted, for: participant.userId, values: [:],
                data: ["challengeId": event.challengeId, "votingDeadline": event.votingDeadline.formatted(.iso8601)],
                actor: nil, event: envelope.header, shared: true, jobs: jobs, in: db)
        }
    }

    /// `challenge.completed` → `challenge_won` and `challenge_lost`, or `result_posted` to both
    /// for a draw, with the tallies from each one's side.
    static func challengeCompleted(
        _ envelope: EventEnvelope<ChallengeCompleted>, jobs: JobQueue, in db: Database
    ) throws {
        let event = envelope.payload
        guard event.participants.count == 2 else { return }
        let result = event.result
        let creator = event.participants[0]
        let votes = [creator.userId: result.creatorVotes, event.participants[1].userId: result.opponentVotes]
        for (me, other) in [
            (event.participants[0], event.participants[1]), (event.participants[1], event.participants[0]),
        ] {
            let type: NotificationType =
                switch result.winner {
                case nil: .resultPosted
                case me.userId: .challengeWon
                default: .challengeLost
                }
            let mine = votes[me.userId] ?? 0
            let theirs = votes[other.userId] ?? 0
            try insert(
                type, for: me.userId, values: ["opponent": other.displayName],
                data: [
                    "challengeId": event.challengeId,
                    "result": result.winner == nil ? "draw" : type == .challengeWon ? "win" : "loss",
                    "myVotes": "\(mine)", "theirVotes": "\(theirs)", "opponentId": other.userId,
                ],
                actor: nil, event: envelope.header, shared: true, jobs: jobs, in: db)
        }
    }
}

/// Spots.
extension AlertsStore {
    /// `spot.nearby` → `spot_nearby` "X is close to you" (the phone's geofence fired near it).
    static func spotNearby(_ envelope: EventEnvelope<SpotNearby>, jobs: JobQueue, in db: Database) throws {
        let event = envelope.payload
        try insert(
            .spotNearby, for: event.userId, values: ["spot": event.spotName],
            data: ["spotId": event.spotId, "distanceM": String(event.distanceM)], actor: nil, event: envelope.header,
            jobs: jobs, in: db)
    }

    /// `spot.unlocked` → `spot_unlocked` "You checked in at X for the first time".
    static func spotUnlocked(_ envelope: EventEnvelope<SpotUnlocked>, jobs: JobQueue, in db: Database) throws {
        let event = envelope.payload
        try insert(
            .spotUnlocked, for: event.userId, values: ["spot": event.spotName], data: ["spotId": event.spotId],
            actor: nil, event: envelope.header, jobs: jobs, in: db)
    }
}
