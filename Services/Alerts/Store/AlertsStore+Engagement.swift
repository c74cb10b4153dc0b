import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Engagement events: follows, likes, reposts, replies and mentions. Following, liking or
/// reposting again after taking it back tells the user once a day per actor (and post), however
/// often it churns.
extension AlertsStore {
    /// How long one actor's repeated follow, like or repost makes one notification.
    static let churnWindow: TimeInterval = 86400

    /// `user.followed` → `new_follower` "X followed you" for the one followed.
    static func userFollowed(_ envelope: EventEnvelope<UserFollowed>, jobs: JobQueue, in db: Database) throws {
        let event = envelope.payload
        try insertOncePerDay(
            .newFollower, for: event.followeeId, actor: event.follower, data: ["userId": event.follower.userId],
            event: envelope.header, jobs: jobs, in: db)
    }

    /// `post.liked` → `like` "X liked your post" for its author.
    static func postLiked(_ envelope: EventEnvelope<PostLiked>, jobs: JobQueue, in db: Database) throws {
        try activity(.like, envelope.payload.activity, event: envelope.header, jobs: jobs, in: db)
    }

    /// `post.reposted` → `repost` "X reposted your post" for its author.
    static func postReposted(_ envelope: EventEnvelope<PostReposted>, jobs: JobQueue, in db: Database) throws {
        try activity(.repost, envelope.payload.activity, event: envelope.header, jobs: jobs, in: db)
    }

    /// `post.replied` → `reply` "X replied to your post" for its author (each reply tells).
    static func postReplied(_ envelope: EventEnvelope<PostReplied>, jobs: JobQueue, in db: Database) throws {
        let activity = envelope.payload.activity
        try insert(
            .reply, for: activity.authorId, values: [:], data: data(of: activity),
            actor: (activity.actor.userId, activity.actor.displayName), event: envelope.header, jobs: jobs, in: db)
    }

    /// `post.mentioned` → `mention` "X mentioned you" for the one named.
    static func postMentioned(_ envelope: EventEnvelope<PostMentioned>, jobs: JobQueue, in db: Database) throws {
        let event = envelope.payload
        try insert(
            .mention, for: event.mentionedId, values: [:], data: ["postId": event.postId],
            actor: (event.actor.userId, event.actor.displayName), event: envelope.header, jobs: jobs, in: db)
    }

    private static func activity(
        _ type: NotificationType, _ activity: PostActivity, event: EventHeader, jobs: JobQueue, in db: Database
    ) throws {
        try insertOncePerDay(
            type, for: activity.authorId, actor: activity.actor, data: data(of: activity), event: event, jobs: jobs,
            in: db)
    }

    private static func data(of activity: PostActivity) -> [String: String] {
        var data = ["postId": activity.postId]
        if let reply = activity.replyId { data["replyId"] = reply }
        return data
    }

    /// ``insert(_:for:values:data:actor:event:shared:jobs:in:)`` unless the same actor made one
    /// of this type with the same data for the user within ``churnWindow``.
    private static func insertOncePerDay(
        _ type: NotificationType, for user: String, actor: EventActor, data: [String: String], event: EventHeader,
        jobs: JobQueue, in db: Database
    ) throws {
        let json = String(decoding: try JSONCoding.encoder().encode(data), as: UTF8.self)
        typealias Columns = NotificationRecord.Columns
        let told = try NotificationRecord.filter(
            Columns.userId == user && Columns.type == type.rawValue && Columns.actorId == actor.userId
                && Columns.data == json && Columns.createdAt > event.occurredAt.addingTimeInterval(-churnWindow)
        ).fetchCount(db)
        guard told == 0 else { return }
        try insert(
            type, for: user, values: [:], data: data, actor: (actor.userId, actor.displayName), event: event,
            jobs: jobs, in: db)
    }
}
