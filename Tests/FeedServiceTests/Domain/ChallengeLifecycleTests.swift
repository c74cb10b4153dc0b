import Foundation
import ServiceHTTP
import ServiceStore
import Testing

@testable import FeedService

/// Every move of the challenge state machine from every status: the specified moves and no other.
@Suite struct ChallengeLifecycleTests {
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    func challenge(
        _ status: ChallengeStatus, deadline: TimeInterval = 60, voting: TimeInterval? = nil
    ) -> ChallengeRecord {
        ChallengeRecord(
            id: "c", creatorId: "a", opponentId: "b", creatorName: "A", opponentName: "B", status: status,
            maxDuration: 15,
            deadline: Self.now.addingTimeInterval(deadline),
            votingDeadline: voting.map { Self.now.addingTimeInterval($0) },
            createdAt: Self.now, updatedAt: Self.now)
    }

    @Test(arguments: ChallengeStatus.allCases)
    func attachingAClipMovesOnlyTheSeedsWay(status: ChallengeStatus) {
        let byCreator = try? ChallengeLifecycle.attaching(by: true, at: status)
        let byOpponent = try? ChallengeLifecycle.attaching(by: false, at: status)
        #expect(byCreator == (status == .created ? .creatorUploading : nil))
        #expect(byOpponent == (status == .creatorReady ? .opponentUploading : nil))
    }

    @Test(arguments: ChallengeStatus.allCases)
    func mediasVerdictsMoveOnlyAChallengeWaitingForThatClip(status: ChallengeStatus) {
        let ready: [ChallengeStatus: ChallengeStatus] = [.creatorUploading: .creatorReady]
        let readyOpponent: [ChallengeStatus: ChallengeStatus] = [.opponentUploading: .bothReady]
        #expect(ChallengeLifecycle.clipReady(of: true, at: status) == ready[status])
        #expect(ChallengeLifecycle.clipReady(of: false, at: status) == readyOpponent[status])
        #expect(ChallengeLifecycle.clipRejected(of: true, at: status) == (status == .creatorUploading ? .created : nil))
        #expect(
            ChallengeLifecycle.clipRejected(of: false, at: status)
                == (status == .opponentUploading ? .creatorReady : nil))
    }

    @Test(arguments: ChallengeStatus.allCases)
    func onlyAChallengeBeforeBothClipsAreReadyCancels(status: ChallengeStatus) {
        let open: Set<ChallengeStatus> = [.created, .creatorUploading, .creatorReady, .opponentUploading]
        #expect((try? ChallengeLifecycle.cancelling(at: status)) == (open.contains(status) ? .cancelled : nil))
    }

    @Test(arguments: ChallengeStatus.allCases)
    func theDeadlineJobExpiresOpensVotingOrCompletesEachWhenDue(status: ChallengeStatus) {
        let before = ChallengeLifecycle.due(challenge(status, deadline: 60, voting: 60), at: Self.now)
        let after = ChallengeLifecycle.due(challenge(status, deadline: -1, voting: -1), at: Self.now)
        switch status {
        case .created, .creatorUploading, .creatorReady, .opponentUploading:
            #expect(before == nil && after == .expired)
        case .bothReady: #expect(before == .voting && after == .voting)
        case .voting: #expect(before == nil && after == .completed)
        case .completed, .expired, .cancelled: #expect(before == nil && after == nil)
        }
        // A deadline stored as whole milliseconds is reached by the job due at it.
        #expect(StoredTime.reached(Self.now.addingTimeInterval(0.0004), at: Self.now))
        #expect(!StoredTime.reached(Self.now.addingTimeInterval(0.01), at: Self.now))
    }

    @Test func moreVotesWinEqualVotesDrawAndTheStreakCountsWinsInARow() {
        #expect(ChallengeLifecycle.result(creator: "a", opponent: "b", creatorVotes: 3, opponentVotes: 2).winner == "a")
        #expect(ChallengeLifecycle.result(creator: "a", opponent: "b", creatorVotes: 0, opponentVotes: 1).winner == "b")
        let draw = ChallengeLifecycle.result(creator: "a", opponent: "b", creatorVotes: 0, opponentVotes: 0)
        #expect(draw.winner == nil && draw.draw)

        var a = ChallengeStatsRecord(userId: "a", updatedAt: Self.now)
        let won = ChallengeResult(winner: "a", creatorVotes: 2, opponentVotes: 1)
        for _ in 0..<3 { a = ChallengeLifecycle.standing(after: won, of: a) }
        #expect((a.points, a.wins, a.streak, a.bestStreak) == (9, 3, 3, 3))
        a = ChallengeLifecycle.standing(after: draw, of: a)
        #expect((a.points, a.draws, a.streak, a.bestStreak) == (10, 1, 0, 3))
        a = ChallengeLifecycle.standing(after: ChallengeResult(winner: "b", creatorVotes: 0, opponentVotes: 1), of: a)
        #expect((a.points, a.losses, a.streak, a.bestStreak) == (10, 1, 0, 3))
    }
}
