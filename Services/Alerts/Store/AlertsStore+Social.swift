import Contracts
import Foundation
import GRDB
import ServiceKit

/// Agora's social events.
extension AlertsStore {
    /// How long one follower's follows make one `new_follower`: following, unfollowing and
    /// following again tells the user once.
    static let followerNoticeWindow: TimeInterval = 86400

    /// `user.followed` → `new_follower` "X followed you" for the one followed, unless the same
    /// follower already made one within ``followerNoticeWindow``.
    static func userFollowed(_ envelope: EventEnvelope<UserFollowed>, jobs: JobQueue, in db: Database) throws {
        let event = envelope.payload
        let since = envelope.occurredAt.addingTimeInterval(-followerNoticeWindow)
        let notYetTold = try NotificationRecord.filter(
            NotificationRecord.Columns.userId == event.followeeId
                && NotificationRecord.Columns.type
                    == NotificationType.newFollower.rawValue
                && NotificationRecord.Columns.actorId == event.follower.userId
                && NotificationRecord.Columns.createdAt > since
        ).isEmpty(db)
        guard notYetTold else { return }
        try insert(
            .newFollower, for: event.followeeId, values: [:], data: ["userId": event.follower.userId],
            actor: (event.follower.userId, event.follower.displayName), event: envelope.header, jobs: jobs, in: db)
    }
}
