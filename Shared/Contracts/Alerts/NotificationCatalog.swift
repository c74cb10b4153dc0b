import Foundation

/// How one notification type behaves: declared once here, read by alerts (to make, render and
/// deliver it) and by the documentation.
public struct NotificationKind: Sendable {
    public let type: NotificationType
    /// The event that makes it; nil while its producer does not exist yet (the app issues
    /// after notifications add them).
    public let event: EventType?
    /// Never held back (quiet hours); a duress alert.
    public let critical: Bool
    /// Whether it is pushed for a user who has not chosen.
    public let pushByDefault: Bool
    /// Title and body templates: `{name}` is replaced by the value of `name` (the actor's
    /// display name is `actor`).
    public let title: String
    public let body: String
    /// The deep link template the app opens, from the seed that names it.
    public let link: String?
    /// The type whose push preference decides this one's, when that is another type
    /// (challenges' activity types follow their six preferences); nil: its own.
    public var governedBy: NotificationType? = nil

    /// The type a user's push choice for this one is stored under.
    public var preference: NotificationType { governedBy ?? type }

    /// `template` with each `{key}` replaced by `values[key]` (unknown keys are left as they are).
    public static func render(_ template: String, _ values: [String: String]) -> String {
        var text = template
        for (key, value) in values { text = text.replacingOccurrences(of: "{\(key)}", with: value) }
        return text
    }
}

/// Every notification type Pinhole makes.
public enum NotificationCatalog {
    public static let kinds: [NotificationKind] = [
        NotificationKind(
            type: .friendRequest, event: FriendRequestSent.eventType, critical: false, pushByDefault: true,
            title: "New friend request", body: "{actor} wants to be friends", link: "/friends/requests"),
        NotificationKind(
            type: .friendAccepted, event: FriendRequestAccepted.eventType, critical: false, pushByDefault: true,
            title: "Friend request accepted", body: "{actor} accepted: your streak starts today",
            link: "/streaks/{streakId}"),
        // Streaks, with the copy their app's notifications use.
        NotificationKind(
            type: .dailyWindow, event: StreakWindowOpened.eventType, critical: false, pushByDefault: true,
            title: "📸 Time to snap!", body: "{prompt} — {partner} is waiting!", link: "/camera"),
        NotificationKind(
            type: .windowClosing, event: StreakWindowClosing.eventType, critical: false, pushByDefault: true,
            title: "⏳ Your snap window closes soon", body: "30 minutes left to snap for today", link: "/camera"),
        NotificationKind(
            type: .streakAtRisk, event: StreakAtRisk.eventType, critical: false, pushByDefault: true,
            title: "⚠️ Streak at risk!",
            body: "Your {count}-day streak with {partner} expires in {hours} hours!", link: "/streaks/{streakId}"),
        NotificationKind(
            type: .streakBroken, event: StreakBroken.eventType, critical: false, pushByDefault: true,
            title: "💔 Streak broken",
            body: "Your {count}-day streak with {partner} ended. Use a recovery token to save it!",
            link: "/streaks/{streakId}"),
        NotificationKind(
            type: .streakSnap, event: StreakSnapped.eventType, critical: false, pushByDefault: true,
            title: "{actor} sent a snap", body: "{actor} sent a snap in your streak 🔥", link: "/streaks/{streakId}"),
        NotificationKind(
            type: .streakMilestone, event: StreakMilestoneReached.eventType, critical: false, pushByDefault: true,
            title: "🔥 {count}-day streak!", body: "You and {partner} hit {count} days! Share your achievement!",
            link: "/share-milestone/{streakId}"),
        NotificationKind(
            type: .nudge, event: StreakNudged.eventType, critical: false, pushByDefault: true,
            title: "👉 {actor} nudged you",
            body: "Your streak with {actor} is waiting for today's snap", link: "/streaks/{streakId}"),
        // Challenges and spots: their six preferences are types of their own; its activity types follow
        // one of them. Deep links are the seed's.
        NotificationKind(
            type: .challengeReceived, event: ChallengeCreated.eventType, critical: false, pushByDefault: true,
            title: "New challenge", body: "{actor} challenged you", link: "/challenge/{challengeId}"),
        NotificationKind(
            type: .challengeAccepted, event: ChallengeAccepted.eventType, critical: false, pushByDefault: true,
            title: "Challenge accepted", body: "{actor} accepted your challenge and is uploading",
            link: "/challenge/{challengeId}", governedBy: .opponentUploaded),
        NotificationKind(
            type: .opponentUploaded, event: ChallengeClipReady.eventType, critical: false, pushByDefault: true,
            title: "Your opponent uploaded", body: "{actor} posted their clip",
            link: "/challenge/{challengeId}/playback"),
        NotificationKind(
            type: .votingStarted, event: ChallengeVotingStarted.eventType, critical: false, pushByDefault: true,
            title: "Voting is open", body: "Both clips are in: the crowd now votes on who landed it",
            link: "/challenge/{challengeId}/vote", governedBy: .votingRequested),
        NotificationKind(
            type: .votingRequested, event: nil, critical: false, pushByDefault: true, title: "Vote on a challenge",
            body: "Both clips are in: who landed it?", link: "/challenge/{challengeId}/vote"),
        NotificationKind(
            type: .challengeWon, event: ChallengeCompleted.eventType, critical: false, pushByDefault: true,
            title: "🏆 You won!", body: "You beat {opponent} {myVotes}–{theirVotes}",
            link: "/challenge/{challengeId}/result", governedBy: .resultPosted),
        NotificationKind(
            type: .challengeLost, event: ChallengeCompleted.eventType, critical: false, pushByDefault: true,
            title: "Challenge lost", body: "{opponent} won {theirVotes}–{myVotes}",
            link: "/challenge/{challengeId}/result", governedBy: .resultPosted),
        NotificationKind(
            type: .resultPosted, event: ChallengeCompleted.eventType, critical: false, pushByDefault: true,
            title: "The result is in", body: "A draw with {opponent}, {myVotes}–{theirVotes}",
            link: "/challenge/{challengeId}/result"),
        NotificationKind(
            type: .newFollower, event: UserFollowed.eventType, critical: false, pushByDefault: true,
            title: "New follower",
            body: "{actor} followed you", link: "/profile/{userId}"),
        // Engagement: the post acted on opens.
        NotificationKind(
            type: .like, event: PostLiked.eventType, critical: false, pushByDefault: true, title: "New like",
            body: "{actor} liked your post", link: "/posts/{postId}"),
        NotificationKind(
            type: .reply, event: PostReplied.eventType, critical: false, pushByDefault: true, title: "New reply",
            body: "{actor} replied to your post", link: "/posts/{replyId}"),
        NotificationKind(
            type: .repost, event: PostReposted.eventType, critical: false, pushByDefault: true, title: "New repost",
            body: "{actor} reposted your post", link: "/posts/{postId}"),
        NotificationKind(
            type: .mention, event: PostMentioned.eventType, critical: false, pushByDefault: true,
            title: "New mention", body: "{actor} mentioned you", link: "/posts/{postId}"),
        // Direct messages (made by alerts itself): the conversation opens.
        NotificationKind(
            type: .message, event: nil, critical: false, pushByDefault: true, title: "{actor}",
            body: "{preview}", link: "/messages/{conversationId}"),
        NotificationKind(
            type: .messageRequest, event: nil, critical: false, pushByDefault: true, title: "Message request",
            body: "{actor} wants to send you a message", link: "/messages/requests", governedBy: .message),
        NotificationKind(
            type: .spotNearby, event: SpotNearby.eventType, critical: false, pushByDefault: true,
            title: "A spot nearby",
            body: "{spot} is close to you", link: "/spots/{spotId}"),
        NotificationKind(
            type: .spotUnlocked, event: SpotUnlocked.eventType, critical: false, pushByDefault: true,
            title: "Spot unlocked",
            body: "You checked in at {spot} for the first time", link: "/spots/{spotId}", governedBy: .spotNearby),
        // Duress: a colleague in duress is never held back.
        NotificationKind(
            type: .duressAlert, event: nil, critical: true, pushByDefault: true, title: "Nearby Duress Alert",
            body: "Customer {customerRef} needs help", link: "/alerts/{alertId}"),
        // To those told of the alert: in the centre and on the live stream, pushed only if asked.
        NotificationKind(
            type: .duressAcknowledged, event: nil, critical: false, pushByDefault: false,
            title: "Duress alert acknowledged", body: "{responderRef} is responding to {customerRef}",
            link: "/alerts/{alertId}"),
        NotificationKind(
            type: .duressCleared, event: nil, critical: false, pushByDefault: true, title: "Duress alert resolved",
            body: "Customer {customerRef} is safe", link: "/alerts/{alertId}"),
        // Moderation, each with the moderator's reason; one push preference for all five.
        NotificationKind(
            type: .moderationWarning, event: UserWarned.eventType, critical: false, pushByDefault: true,
            title: "A warning from the moderators", body: "{reason}", link: "/moderation/actions/{actionId}"),
        NotificationKind(
            type: .contentRemoved, event: ContentRemoved.eventType, critical: false, pushByDefault: true,
            title: "Your {kind} was removed", body: "{reason}. You can appeal.", link: "/moderation/actions/{actionId}",
            governedBy: .moderationWarning),
        NotificationKind(
            type: .accountSuspended, event: UserSuspended.eventType, critical: false, pushByDefault: true,
            title: "Your account is suspended",
            body: "{reason}. Until {until} you can read but not post; you can appeal.",
            link: "/moderation/actions/{actionId}", governedBy: .moderationWarning),
        NotificationKind(
            type: .accountReinstated, event: UserReinstated.eventType, critical: false, pushByDefault: true,
            title: "Your account is active again", body: "You can post again.", link: "/moderation/actions/{actionId}",
            governedBy: .moderationWarning),
        NotificationKind(
            type: .appealDecided, event: AppealDecided.eventType, critical: false, pushByDefault: true,
            title: "Your appeal was decided", body: "{outcome}: {reason}", link: "/moderation/actions/{actionId}",
            governedBy: .moderationWarning),
    ]

    /// The kind of `type` (every type has one: a test checks it).
    public static func kind(of type: NotificationType) -> NotificationKind {
        guard let kind = kinds.first(where: { $0.type == type }) else {
            preconditionFailure("\(type) is not in the notification catalog")
        }
        return kind
    }
}
