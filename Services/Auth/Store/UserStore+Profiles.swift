import Contracts
import Foundation
import GRDB
import ServiceKit

/// Public profiles: who may see whom, and the counts feed publishes.
extension UserStore {
    /// The app user (not deleted, not a PIN customer) with this id, or whose username is `key`
    /// now (an old name finds nobody), unless a block stands between them and `viewer`.
    func visibleUser(id: String? = nil, usernameKey key: String? = nil, viewer: String) async throws -> PublicProfile? {
        try await database.read { db in
            var request = UserRecord.all().live().filter(sql: "id NOT IN (SELECT user_id FROM customer)")
            if let id { request = request.filter(key: id) }
            if let key { request = request.filter(UserRecord.Columns.usernameKey == key) }
            guard let user = try request.fetchOne(db), try !BlockMirror.isBlocked(viewer, user.id, in: db) else {
                return nil
            }
            let counts = try ProfileCountRecord.fetchOne(db, key: user.id)
            return user.publicProfile(
                counts: counts?.counts ?? ProfileCounts(),
                stats: ProfileStats(
                    streak: try StreakProfileRecord.fetchOne(db, key: user.id)?.stats, challenges: counts?.challenges))
        }
    }

    /// `users` without the viewer, anyone a block stands between them and the viewer, and
    /// anyone the viewer muted.
    func shown(_ users: [UserSummary], viewer: String) async throws -> [UserSummary] {
        try await database.read { db in
            try users.filter { user in
                guard user.id != viewer else { return false }
                return try !BlockMirror.isBlocked(viewer, user.id, in: db)
                    && !MuteMirror.isMuted(user.id, by: viewer, in: db)
            }
        }
    }

    /// Shows `photo` (the user's own, checked by the caller) as the user's avatar, or none: media
    /// is told in the same transaction to make the new photo public (`media.attached`) and
    /// that the old one is no longer the avatar (`media.detached`). Nil when the user is gone.
    func setAvatar(userID: String, photo: MediaSummary?, at now: Date) async throws -> UserRecord? {
        try await database.write { db in
            guard var user = try UserRecord.filter(key: userID).live().fetchOne(db) else { return nil }
            let old = user.avatarMediaId
            guard old != photo?.id else { return user }
            user.avatarMediaId = photo?.id
            user.updatedAt = now
            try user.update(db)
            if let old {
                try outbox.enqueue(
                    MediaDetached(mediaId: old, ownerId: userID, referenceType: "avatar", referenceId: userID), in: db)
            }
            if let photo {
                try outbox.enqueue(
                    MediaAttached(
                        mediaId: photo.id, ownerId: userID, visibility: .public, referenceType: "avatar",
                        referenceId: userID), in: db)
            }
            return user
        }
    }

    /// `profile.counts_changed`: keeps the counts unless a later revision is already here (or
    /// the user is gone).
    static func countsChanged(_ event: ProfileCountsChanged, in db: Database) throws {
        let counts = event.counts
        try keepLatest(
            ProfileCountRecord(
                userId: event.userId, followers: counts.followers, following: counts.following, posts: counts.posts,
                challenges: event.challenges, revision: event.revision), of: event.userId, revision: event.revision,
            in: db)
    }

    /// `profile.streak_stats_changed`: keeps the numbers unless a later revision is already
    /// here (or the user is gone).
    static func streakStatsChanged(_ event: StreakStatsChanged, in db: Database) throws {
        let stats = event.stats
        try keepLatest(
            StreakProfileRecord(
                userId: event.userId, activeStreaks: stats.activeStreaks, longestStreak: stats.longestStreak,
                totalSnaps: stats.totalSnaps, revision: event.revision), of: event.userId, revision: event.revision,
            in: db)
    }

    /// Saves `record`, a user's row of numbers another service publishes (keyed by `user_id`),
    /// unless its table already holds a later `revision` for them or the user is not here.
    private static func keepLatest<Record: ServiceRecord>(
        _ record: Record, of userID: String, revision: Int, in db: Database
    ) throws {
        guard try UserRecord.exists(db, key: userID) else { return }
        let stored = try Int.fetchOne(
            db, sql: "SELECT revision FROM \(Record.databaseTableName) WHERE user_id = ?", arguments: [userID])
        guard stored.map({ revision > $0 }) ?? true else { return }
        try record.upsert(db)
    }
}
