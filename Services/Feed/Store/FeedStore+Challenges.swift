import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// The challenge's one job, keyed by its id and due at the next moment that matters: its
/// deadline (expire), now (open voting once both clips are ready), the voting deadline (result).
enum ChallengeDeadline {
    static let kind: JobKind = "challenge.deadline"

    struct Job: Codable, Sendable {
        var challengeId: String
    }
}

/// Head-to-head challenges: every move of ``ChallengeLifecycle`` in one transaction with its
/// event and the challenge's next job.
extension FeedStore {
    /// Stores a new challenge unless the creator made `policy.limit` within its window (429,
    /// decided in the same transaction) or a block stands between the two (404). A challenge at
    /// a spot takes the spot's place unless it names its own, and counts on the spot; an
    /// unknown spot (or one across a block) is a 404.
    func create(_ challenge: ChallengeRecord, limit policy: RatePolicy) async throws -> ChallengeRecord {
        try await database.tracedWrite { [outbox, jobs] db in
            var challenge = challenge
            let recent = try ChallengeRecord.filter(ChallengeRecord.Columns.creatorId == challenge.creatorId)
                .filter(ChallengeRecord.Columns.createdAt > challenge.createdAt.addingTimeInterval(-policy.window))
                .select(ChallengeRecord.Columns.createdAt, as: Date.self).fetchAll(db)
            let decision = policy.decide(after: recent, now: challenge.createdAt)
            guard decision.allowed else {
                throw ServiceError.rateLimited(
                    "At most \(policy.limit) challenges an hour.", policy: policy, decision: decision)
            }
            if try BlockMirror.isBlocked(challenge.creatorId, challenge.opponentId, in: db) {
                throw ServiceError.notFound("User")
            }
            if let spotID = challenge.spotId {
                guard var spot = try Self.visibleSpot(id: spotID, viewer: challenge.creatorId, in: db) else {
                    throw ServiceError.notFound("Spot")
                }
                if challenge.latitude == nil {
                    (challenge.latitude, challenge.longitude) = (spot.latitude, spot.longitude)
                }
                spot.challengeCount += 1
                try spot.update(db)
            }
            try challenge.insert(db)
            try outbox.enqueue(
                ChallengeCreated(
                    challengeId: challenge.id, creator: challenge.party(challenge.creatorId),
                    opponentId: challenge.opponentId, trick: challenge.trick, deadline: challenge.deadline), in: db)
            try jobs.schedule(
                ChallengeDeadline.kind, key: challenge.id, payload: ChallengeDeadline.Job(challengeId: challenge.id),
                at: challenge.deadline, in: db)
            return challenge
        }
    }

    /// The challenge with its clips, and `viewer`'s vote, when `viewer` may see it: a
    /// participant always; anyone else once voting opened, unless a block stands between them
    /// and either participant.
    func challenge(id: String, viewer: String) async throws -> ChallengeView? {
        try await database.tracedRead { db in try visibleChallenge(id: id, viewer: viewer, in: db) }
    }

    func visibleChallenge(id: String, viewer: String, in db: Database) throws -> ChallengeView? {
        guard let record = try ChallengeRecord.fetchOne(db, key: id) else { return nil }
        if !record.isParticipant(viewer) {
            guard record.votingOpened,
                try !record.participants.contains(where: { try BlockMirror.isBlocked(viewer, $0, in: db) })
            else { return nil }
        }
        return try views([record], viewer: viewer, in: db).first
    }

    /// Attaches `clip` (its owner a participant of the challenge): the creator records first,
    /// the opponent accepts by recording (``ChallengeLifecycle/attaching(by:at:)``). Media is
    /// told, in the same transaction, that the opponent may play it. Attaching the clip already
    /// attached changes nothing.
    func attach(_ clip: ChallengeClipRecord, at now: Date) async throws -> ChallengeView? {
        try await database.tracedWrite { [outbox] db in
            guard var challenge = try ChallengeRecord.fetchOne(db, key: clip.challengeId),
                challenge.isParticipant(clip.userId)
            else { return nil }
            let existing = try ChallengeClipRecord.fetchOne(
                db, key: ["challenge_id": clip.challengeId, "user_id": clip.userId])
            if let existing, existing.mediaId == clip.mediaId, existing.state != .rejected {
                return try views([challenge], viewer: clip.userId, in: db).first
            }
            let creator = clip.userId == challenge.creatorId
            challenge.status = try ChallengeLifecycle.attaching(by: creator, at: challenge.status)
            // Past its deadline it is expired, whether or not the job has run yet.
            guard !StoredTime.reached(challenge.deadline, at: now) else {
                throw ServiceError(.conflict, "The challenge's deadline has passed.")
            }
            challenge.updatedAt = now
            try challenge.update(db)
            try clip.upsert(db)
            try outbox.enqueue(
                MediaAttached(
                    mediaId: clip.mediaId, ownerId: clip.userId, visibility: .private, referenceType: "challenge",
                    referenceId: challenge.id, readers: [challenge.other(than: clip.userId)]), in: db)
            if !creator {
                try outbox.enqueue(
                    ChallengeAccepted(
                        challengeId: challenge.id, opponent: challenge.party(clip.userId),
                        creatorId: challenge.creatorId), in: db)
            }
            return try views([challenge], viewer: clip.userId, in: db).first
        }
    }

    /// A participant cancels before both clips are ready.
    func cancel(challenge id: String, by user: String, at now: Date) async throws -> ChallengeView? {
        try await database.tracedWrite { [jobs] db in
            guard var challenge = try ChallengeRecord.fetchOne(db, key: id), challenge.isParticipant(user) else {
                return nil
            }
            if challenge.status != .cancelled {
                challenge.status = try ChallengeLifecycle.cancelling(at: challenge.status)
                challenge.updatedAt = now
                try challenge.update(db)
                try jobs.cancel(ChallengeDeadline.kind, key: id, in: db)
            }
            return try views([challenge], viewer: user, in: db).first
        }
    }

    /// `user.blocked`: the two's challenges still before both clips are ready are cancelled
    /// (no challenge between blocked users); one already open for voting runs its course. The
    /// two stop following each other.
    func blocked(_ event: UserBlocked, at now: Date, in db: Database) throws {
        let pair = [event.blockerId, event.blockedId]
        let between = try ChallengeRecord.filter(
            pair.contains(ChallengeRecord.Columns.creatorId) && pair.contains(ChallengeRecord.Columns.opponentId)
                && ChallengeLifecycle.open.map(\.rawValue).contains(ChallengeRecord.Columns.status)
        ).fetchAll(db)
        for var challenge in between {
            challenge.status = .cancelled
            challenge.updatedAt = now
            try challenge.update(db)
            try jobs.cancel(ChallengeDeadline.kind, key: challenge.id, in: db)
        }
        try Self.unfollowBoth(event, outbox: outbox, in: db)
    }

    /// `viewer`'s vote for `votedFor`, while voting is open: not a participant's, not on a
    /// challenge whose participant blocks the voter or is blocked by them (nil: not found), and
    /// not while moderation hides one of its clips.
    func vote(
        challenge id: String, by viewer: String, for votedFor: String, at now: Date
    ) async throws -> ChallengeView? {
        try await database.tracedWrite { db in
            guard let found = try visibleChallenge(id: id, viewer: viewer, in: db) else { return nil }
            let challenge = found.record
            guard !challenge.isParticipant(viewer) else {
                throw ServiceError(.forbidden, "Participants do not vote on their own challenge.")
            }
            guard challenge.status == .voting,
                !StoredTime.reached(challenge.votingDeadline ?? .distantPast, at: now)
            else {
                throw ServiceError(.conflict, "Voting on this challenge is closed.")
            }
            guard !found.clips.contains(where: { $0.hiddenAt != nil }) else {
                throw ServiceError(.conflict, "A clip of this challenge is held for review; vote once it is back.")
            }
            guard challenge.isParticipant(votedFor) else {
                throw ServiceError.validation("`votedFor` must be the creator's or the opponent's id.")
            }
            try ChallengeVoteRecord(challengeId: id, voterId: viewer, votedFor: votedFor, updatedAt: now).upsert(db)
            var voted = found
            voted.myVote = votedFor
            return voted
        }
    }

    /// The standing of `user` (all zeros before their first result) with how many spots they
    /// unlocked, nil when a block stands between them and `viewer`.
    func stats(of user: String, viewer: String, at now: Date) async throws -> ChallengeStats? {
        try await database.tracedRead { db in
            guard try !BlockMirror.isBlocked(viewer, user, in: db) else { return nil }
            return try Self.challengeStanding(of: user, in: db)
                ?? ChallengeStatsRecord(userId: user, updatedAt: now).contract(spotsUnlocked: 0)
        }
    }

    /// `user`'s standing with the spots they unlocked, or nil before their first result or spot.
    static func challengeStanding(of user: String, in db: Database) throws -> ChallengeStats? {
        let stats = try ChallengeStatsRecord.fetchOne(db, primaryKey: user)
        let spots =
            try Int.fetchOne(
                db.cachedStatement(sql: "SELECT COUNT(DISTINCT spot_id) FROM spot_check_in WHERE user_id = ?"),
                arguments: [user]) ?? 0
        guard stats != nil || spots > 0 else { return nil }
        return (stats ?? ChallengeStatsRecord(userId: user, updatedAt: Date())).contract(spotsUnlocked: spots)
    }

    // MARK: - Media's verdicts

    /// `media.ready` for a clip: the challenge moves on (``ChallengeLifecycle/clipReady(of:at:)``)
    /// and the other participant hears of it; with both clips ready, voting opens at once (the job).
    func clipReady(_ event: MediaReady, at now: Date, in db: Database) throws {
        for var clip in try Self.waitingClips(media: event.mediaId, owner: event.ownerId, in: db) {
            guard var challenge = try ChallengeRecord.fetchOne(db, key: clip.challengeId) else { continue }
            clip.state = .ready
            try clip.update(db)
            guard let next = ChallengeLifecycle.clipReady(of: clip.userId == challenge.creatorId, at: challenge.status)
            else { continue }
            challenge.status = next
            challenge.updatedAt = now
            try challenge.update(db)
            try outbox.enqueue(
                ChallengeClipReady(
                    challengeId: challenge.id, uploader: challenge.party(clip.userId),
                    toUserId: challenge.other(than: clip.userId)), in: db)
            if next == .bothReady {
                try jobs.schedule(
                    ChallengeDeadline.kind, key: challenge.id,
                    payload: ChallengeDeadline.Job(challengeId: challenge.id), onConflict: .replace, in: db)
            }
        }
    }

    /// `media.rejected` for a clip: it is marked with media's reason and the challenge steps
    /// back so that its owner can attach another.
    static func clipRejected(_ event: MediaRejected, at now: Date, in db: Database) throws {
        for var clip in try waitingClips(media: event.mediaId, owner: event.ownerId, in: db) {
            clip.state = .rejected
            clip.rejectionReason = event.reason
            try clip.update(db)
            guard var challenge = try ChallengeRecord.fetchOne(db, key: clip.challengeId),
                let back = ChallengeLifecycle.clipRejected(
                    of: clip.userId == challenge.creatorId, at: challenge.status)
            else { continue }
            challenge.status = back
            challenge.updatedAt = now
            try challenge.update(db)
        }
    }

    private static func waitingClips(media: String, owner: String, in db: Database) throws -> [ChallengeClipRecord] {
        typealias Columns = ChallengeClipRecord.Columns
        return try ChallengeClipRecord.filter(
            Columns.mediaId == media && Columns.userId == owner && Columns.state == ChallengeClipStatus.processing
        ).fetchAll(db)
    }

    // MARK: - The deadline job

    /// The job's work, in the transaction that completes it: whatever ``ChallengeLifecycle/due(_:at:)``
    /// says, each once (a second run finds nothing due).
    func runDeadline(of id: String, votingFor votingTime: TimeInterval, at now: Date, in db: Database) throws {
        guard var challenge = try ChallengeRecord.fetchOne(db, key: id) else { return }
        guard let next = ChallengeLifecycle.due(challenge, at: now) else {
            // Early (a clock moved back, say): look again when it is due.
            if let check = ChallengeLifecycle.nextCheck(challenge, at: now) {
                try jobs.schedule(
                    ChallengeDeadline.kind, key: id, payload: ChallengeDeadline.Job(challengeId: id), at: check,
                    onConflict: .move, in: db)
            }
            return
        }
        challenge.status = next
        challenge.updatedAt = now
        switch next {
        case .voting:
            let deadline = now.addingTimeInterval(votingTime)
            challenge.votingDeadline = deadline
            challenge.votingMs = JSONCoding.milliseconds(now)
            // Both clips become playable by everyone signed in (the seed's storage rule).
            for clip in try ChallengeClipRecord.filter(ChallengeClipRecord.Columns.challengeId == id).fetchAll(db) {
                try outbox.enqueue(
                    MediaAttached(
                        mediaId: clip.mediaId, ownerId: clip.userId, visibility: .public, referenceType: "challenge",
                        referenceId: id), in: db)
            }
            try outbox.enqueue(
                ChallengeVotingStarted(challengeId: id, participants: challenge.parties, votingDeadline: deadline),
                in: db)
            try jobs.schedule(
                ChallengeDeadline.kind, key: id, payload: ChallengeDeadline.Job(challengeId: id), at: deadline,
                onConflict: .replace, in: db)
        case .completed:
            let tally = try Dictionary(
                Row.fetchAll(
                    db.cachedStatement(
                        sql:
                            "SELECT voted_for, COUNT(*) AS n FROM challenge_vote WHERE challenge_id = ? GROUP BY voted_for"
                    ),
                    arguments: [id]
                ).map { ($0["voted_for"] as String, $0["n"] as Int) }, uniquingKeysWith: +)
            let result = ChallengeLifecycle.result(
                creator: challenge.creatorId, opponent: challenge.opponentId,
                creatorVotes: tally[challenge.creatorId] ?? 0, opponentVotes: tally[challenge.opponentId] ?? 0)
            (challenge.winnerId, challenge.creatorVotes, challenge.opponentVotes) =
                (result.winner, result.creatorVotes, result.opponentVotes)
            for user in challenge.participants {
                var stats =
                    try ChallengeStatsRecord.fetchOne(db, primaryKey: user)
                    ?? ChallengeStatsRecord(userId: user, updatedAt: now)
                stats = ChallengeLifecycle.standing(after: result, of: stats)
                stats.updatedAt = now
                try stats.upsert(db)
                try Self.adjustCounts(of: user, outbox: outbox, in: db)
            }
            try outbox.enqueue(
                ChallengeCompleted(challengeId: id, participants: challenge.parties, result: result), in: db)
        default: break
        }
        try challenge.update(db)
    }
}
