import Foundation

/// `GET`, `PUT` and `DELETE /v1/users/{id}/follow`: where the viewer and the user stand.
public struct FollowState: Codable, Sendable, Equatable {
    /// The user looked at.
    public var userId: String
    /// Whether the viewer follows them.
    public var following: Bool
    /// Whether they follow the viewer.
    public var followsYou: Bool
    /// Their counts, as they now stand.
    public var counts: ProfileCounts

    public init(userId: String, following: Bool, followsYou: Bool, counts: ProfileCounts) {
        self.userId = userId
        self.following = following
        self.followsYou = followsYou
        self.counts = counts
    }
}

/// What a profile counts: followers, people followed, posts.
public struct ProfileCounts: Codable, Sendable, Equatable {
    public var followers: Int
    public var following: Int
    public var posts: Int

    public init(followers: Int = 0, following: Int = 0, posts: Int = 0) {
        self.followers = followers
        self.following = following
        self.posts = posts
    }
}

/// One person of `GET /v1/users/{id}/followers` or `/following`, newest follow first.
public struct FollowEntry: Codable, Sendable, Equatable {
    /// The person, with where the reader stands with them (`relation`: following, follows
    /// you, muted).
    public var user: PersonView
    public var followedAt: Date

    public init(user: PersonView, followedAt: Date) {
        self.user = user
        self.followedAt = followedAt
    }
}

/// `user.followed`: `follower` started following `followeeId` (notification `new_follower`).
public struct UserFollowed: DomainEvent, Equatable {
    public static let eventType: EventType = "user.followed"
    public var follower: EventActor
    public var followeeId: String

    public init(follower: EventActor, followeeId: String) {
        self.follower = follower
        self.followeeId = followeeId
    }
}

/// `profile.counts_changed`: a user's counts as feed now keeps them, and their challenge
/// standing once they have one (a result or a spot). `revision` grows with every change of
/// either; a copy keeps the highest it has seen, so a late one is ignored.
public struct ProfileCountsChanged: DomainEvent, Equatable {
    public static let eventType: EventType = "profile.counts_changed"
    public var userId: String
    public var counts: ProfileCounts
    public var challenges: ChallengeStats?
    public var revision: Int

    public init(userId: String, counts: ProfileCounts, challenges: ChallengeStats? = nil, revision: Int) {
        self.userId = userId
        self.counts = counts
        self.challenges = challenges
        self.revision = revision
    }
}

/// `GET /internal/follows/{followerId}/{followeeId}` on feed: the follow, when there is one
/// (404 otherwise). Alerts asks it to put a first message from a stranger in requests.
public struct FollowEdge: Codable, Sendable, Equatable {
    public var followerId: String
    public var followeeId: String
    public var since: Date

    public init(followerId: String, followeeId: String, since: Date) {
        self.followerId = followerId
        self.followeeId = followeeId
        self.since = since
    }
}
