import Contracts
import GRDB
import ServiceHTTP
import ServiceStore

/// The events alerts applies, and what each does; `buildRouter` serves it at
/// `/internal/events`, tests feed it directly.
enum AlertsInbox {
    static func make(
        jobs: JobQueue, streams: LiveStreams, duressReach: AlertsStore.DuressReach, clock: any WallClock
    ) -> EventInbox {
        var inbox = EventInbox(clock: clock)
        inbox.on(FriendRequestSent.self) { try AlertsStore.friendRequestSent($0, jobs: jobs, in: $1) }
        inbox.on(FriendRequestAccepted.self) { try AlertsStore.friendRequestAccepted($0, jobs: jobs, in: $1) }
        inbox.on(StreakAtRisk.self) { try AlertsStore.streakAtRisk($0, jobs: jobs, in: $1) }
        inbox.on(StreakBroken.self) { try AlertsStore.streakBroken($0, jobs: jobs, in: $1) }
        inbox.on(StreakSnapped.self) { try AlertsStore.streakSnapped($0, jobs: jobs, in: $1) }
        inbox.on(StreakNudged.self) { try AlertsStore.streakNudged($0, jobs: jobs, in: $1) }
        inbox.on(StreakWindowOpened.self) { try AlertsStore.windowOpened($0, jobs: jobs, in: $1) }
        inbox.on(StreakWindowClosing.self) { try AlertsStore.windowClosing($0, jobs: jobs, in: $1) }
        inbox.on(StreakMilestoneReached.self) { try AlertsStore.streakMilestone($0, jobs: jobs, in: $1) }
        inbox.on(ChallengeCreated.self) { try AlertsStore.challengeCreated($0, jobs: jobs, in: $1) }
        inbox.on(ChallengeAccepted.self) { try AlertsStore.challengeAccepted($0, jobs: jobs, in: $1) }
        inbox.on(ChallengeClipReady.self) { try AlertsStore.challengeClipReady($0, jobs: jobs, in: $1) }
        inbox.on(ChallengeVotingStarted.self) { try AlertsStore.challengeVotingStarted($0, jobs: jobs, in: $1) }
        inbox.on(ChallengeCompleted.self) { try AlertsStore.challengeCompleted($0, jobs: jobs, in: $1) }
        inbox.on(SpotUnlocked.self) { try AlertsStore.spotUnlocked($0, jobs: jobs, in: $1) }
        inbox.on(SpotNearby.self) { try AlertsStore.spotNearby($0, jobs: jobs, in: $1) }
        inbox.on(UserFollowed.self) { try AlertsStore.userFollowed($0, jobs: jobs, in: $1) }
        inbox.on(PostLiked.self) { try AlertsStore.postLiked($0, jobs: jobs, in: $1) }
        inbox.on(PostReplied.self) { try AlertsStore.postReplied($0, jobs: jobs, in: $1) }
        inbox.on(PostReposted.self) { try AlertsStore.postReposted($0, jobs: jobs, in: $1) }
        inbox.on(PostMentioned.self) { try AlertsStore.postMentioned($0, jobs: jobs, in: $1) }
        inbox.on(UserWarned.self) { try AlertsStore.userWarned($0, jobs: jobs, in: $1) }
        inbox.on(ContentRemoved.self) { envelope, db in
            try AlertsStore.contentRemoved(envelope, jobs: jobs, in: db)
            if envelope.payload.targetType == .message {
                try AlertsStore.hideMessage(envelope.payload.targetId, in: db)
            }
        }
        inbox.on(ContentHidden.self) { envelope, db in
            if envelope.payload.targetType == .message {
                try AlertsStore.hideMessage(envelope.payload.targetId, in: db)
            }
        }
        inbox.on(ContentRestored.self) { envelope, db in
            if envelope.payload.targetType == .message {
                try AlertsStore.restoreMessage(envelope.payload.targetId, in: db)
            }
        }
        inbox.on(UserSuspended.self) { try AlertsStore.userSuspended($0, jobs: jobs, in: $1) }
        inbox.on(UserReinstated.self) { try AlertsStore.userReinstated($0, jobs: jobs, in: $1) }
        inbox.on(AppealDecided.self) { try AlertsStore.appealDecided($0, jobs: jobs, in: $1) }
        inbox.on(DuressRaised.self) {
            try AlertsStore.duressRaised($0, reach: duressReach, jobs: jobs, now: clock.now(), in: $1)
        }
        inbox.on(DuressCleared.self) { try AlertsStore.duressCleared($0, jobs: jobs, in: $1) }
        // An ended session loses its devices, and its live streams once that commits.
        inbox.on(SessionEnded.self) { envelope, db in
            try AlertsStore.sessionEnded(envelope, in: db)
            let sessions = Set(envelope.payload.sessionIds)
            GroupCommit.afterCommit(of: db) { streams.end(sessions: sessions) }
        }
        inbox.mirrorBlocks()
        inbox.mirrorMutes()
        inbox.mirrorKeywordMutes()
        inbox.mirrorProfiles()
        inbox.mirrorMedia()
        inbox.onUserDeleted { user, db in
            try AlertsStore.erase(userID: user, in: db)
            GroupCommit.afterCommit(of: db) { streams.end(user: user) }
        }
        return inbox
    }
}
