import Contracts
import Foundation
import ServiceHTTP
import ServiceStore

/// The challenge state machine, as rules over a status: every move the seed
/// allows and nothing else. The store applies a move in the transaction that writes its event;
/// a move that does not apply is refused (a request: 409 `CONFLICT`) or, for events and jobs
/// that arrive twice, ignored.
enum ChallengeLifecycle {
    /// Before both clips are ready: what a deadline expires and a participant may cancel.
    static let open: Set<ChallengeStatus> = [.created, .creatorUploading, .creatorReady, .opponentUploading]

    /// Finished: nothing moves any more.
    static let finished: Set<ChallengeStatus> = [.completed, .expired, .cancelled]

    /// Points for a win, a draw and a loss.
    static let points = (win: 3, draw: 1, loss: 0)

    /// The status once `creator` (or the opponent) attaches a clip: the creator records first
    /// (`created`, or again after a rejection), then the opponent accepts by recording
    /// (`creator_ready`).
    static func attaching(by creator: Bool, at status: ChallengeStatus) throws -> ChallengeStatus {
        switch (creator, status) {
        case (true, .created): return .creatorUploading
        case (false, .creatorReady): return .opponentUploading
        case (false, .created), (false, .creatorUploading):
            throw ServiceError(.conflict, "The creator's clip is not ready yet: record once it is.")
        default:
            throw ServiceError(.conflict, "A clip cannot be attached to a challenge that is \(status.rawValue).")
        }
    }

    /// The status once media says the clip of the creator (or the opponent) is ready; nil when
    /// the challenge is not waiting for it.
    static func clipReady(of creator: Bool, at status: ChallengeStatus) -> ChallengeStatus? {
        switch (creator, status) {
        case (true, .creatorUploading): .creatorReady
        case (false, .opponentUploading): .bothReady
        default: nil
        }
    }

    /// The status once media rejects the clip: one step back, so that its owner can attach
    /// another (the seed's `rejected → pending_clip`); nil when it was not waiting for it.
    static func clipRejected(of creator: Bool, at status: ChallengeStatus) -> ChallengeStatus? {
        switch (creator, status) {
        case (true, .creatorUploading): .created
        case (false, .opponentUploading): .creatorReady
        default: nil
        }
    }

    /// A participant cancels: only before both clips are ready.
    static func cancelling(at status: ChallengeStatus) throws -> ChallengeStatus {
        guard open.contains(status) else {
            throw ServiceError(.conflict, "A challenge that is \(status.rawValue) cannot be cancelled.")
        }
        return .cancelled
    }

    /// What the challenge's deadline job does at `now`: expire it (open past its deadline), open
    /// voting (both clips ready), or complete it (voting past its deadline); nil: nothing yet.
    static func due(_ challenge: ChallengeRecord, at now: Date) -> ChallengeStatus? {
        switch challenge.status {
        case let status where open.contains(status): StoredTime.reached(challenge.deadline, at: now) ? .expired : nil
        case .bothReady: .voting
        case .voting: StoredTime.reached(challenge.votingDeadline ?? .distantFuture, at: now) ? .completed : nil
        default: nil
        }
    }

    /// When the deadline job should next look at the challenge: its deadline while open, now
    /// once both clips are ready, the voting deadline while voting; nil once finished.
    static func nextCheck(_ challenge: ChallengeRecord, at now: Date) -> Date? {
        switch challenge.status {
        case let status where open.contains(status): challenge.deadline
        case .bothReady: now
        case .voting: challenge.votingDeadline
        default: nil
        }
    }

    /// The result from the votes for each: more votes win; equal votes (none included) are a
    /// draw.
    static func result(creator: String, opponent: String, creatorVotes: Int, opponentVotes: Int) -> ChallengeResult {
        let winner: String? =
            creatorVotes > opponentVotes ? creator : opponentVotes > creatorVotes ? opponent : nil
        return ChallengeResult(winner: winner, creatorVotes: creatorVotes, opponentVotes: opponentVotes)
    }

    /// `stats` after `result` for its participant `stats.userId`: points, the tally, and the
    /// seed's streak of wins (a loss or a draw ends it).
    static func standing(after result: ChallengeResult, of stats: ChallengeStatsRecord) -> ChallengeStatsRecord {
        var stats = stats
        switch result.winner {
        case nil:
            stats.draws += 1
            stats.points += points.draw
            stats.streak = 0
        case stats.userId:
            stats.wins += 1
            stats.points += points.win
            stats.streak += 1
            stats.bestStreak = max(stats.bestStreak, stats.streak)
        default:
            stats.losses += 1
            stats.points += points.loss
            stats.streak = 0
        }
        return stats
    }
}
