import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Public profiles: who may see whom, and the counts feed publishes.
extension UserStore {
    /// The app user (not deleted, not a PIN customer) with this id, or whose username is `key`
    /// now (an old name finds nobody), unless a block stands between them and `viewer`.
    func visibleUser(id: String? = nil, usernameKey key: String? = nil, viewer: String) async throws -> PublicProfile? {
        try await database.tracedRead { db in
            var request = UserRecord.all().live().filter(sql: "id NOT IN (SELECT user_id FROM customer)")
            if let id { request = request.filter(key: id) }
            if let key { request = request.filter(UserRecord.Columns.usernameKey == key) }
            guard let user = try request.fetchOne(db), try !BlockMirror.isBlocked(viewer, user.id, in: db) else {
                return nil
            }
            let counts = try ProfileCountRecord.fetchOne(db, primaryKey: user.id)
            return user.publicProfile(
                counts: counts?.counts ?? ProfileCounts(),
                stats: ProfileStats(challenges: counts?.challenges))
        }
    }

    /// Shows `photo` (the user's own, checked by the caller) as the user's avatar, or none: media
    /// is told in the same transaction to make the new photo public (`media.attached`) and
    /// that the old one is no longer the avatar (`media.detached`). Nil when the user is gone.
    func setAvatar(userID: String, photo: MediaSummary?, at now: Date) async throws -> UserRecord? {
        try await database.tracedWrite { db in
            guard var user = try UserRecord.live(id: userID, in: db) else { return nil }
            let old = user.avatarMediaId
            guard old != photo?.id else { return user }
            user.avatarMediaId = photo?.id
            user.updatedAt = now
            try Self.saveAnnounced(&user, outbox: outbox, in: db)
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

    /// `profile.counts_changed`: keeps the counts and the challenge standing unless a later
    /// revision is already here (or the user is gone).
    static func countsChanged(_ event: ProfileCountsChanged, in db: Database) throws {
        guard try UserRecord.exists(db, primaryKey: event.userId) else { return }
        let stored = try ProfileCountRecord.fetchOne(db, primaryKey: event.userId)
        guard stored.map({ event.revision > $0.revision }) ?? true else { return }
        let counts = event.counts
        try ProfileCountRecord(
            userId: event.userId, followers: counts.followers, following: counts.following, posts: counts.posts,
            challenges: event.challenges, revision: event.revision
        ).upsert(db)
    }
}

// MARK: - What lists show of people

extension UserStore {
    /// Inserts a new `user` and tells every service that shows people (`profile.changed`,
    /// revision 1), in the caller's transaction.
    static func insertAnnounced(_ user: UserRecord, outbox: Outbox, in db: Database) throws {
        var user = user
        user.profileRevision = 1
        try user.insert(db)
        try outbox.enqueue(user.profileChanged, in: db)
    }

    /// Saves a change of what lists show of `user` (name, username, avatar, deletion) and sends
    /// it as the next revision of `profile.changed`. Every such change goes through here.
    static func saveAnnounced(_ user: inout UserRecord, outbox: Outbox, in db: Database) throws {
        user.profileRevision += 1
        try user.update(db)
        try outbox.enqueue(user.profileChanged, in: db)
    }

    /// Up to `limit` users by id after `after`, deleted ones as such, as `profile.changed`
    /// says them, and the cursor of the next page (nil on the last): a copy's first fill.
    func profiles(after: String?, limit: Int) async throws -> Page<ProfileChanged> {
        try await database.tracedRead { db in
            var request = UserRecord.order(Column("id")).limit(limit + 1)
            if let after { request = request.filter(Column("id") > after) }
            return Page(try request.fetchAll(db), limit: limit, item: \.profileChanged, position: \.id)
        }
    }
}
