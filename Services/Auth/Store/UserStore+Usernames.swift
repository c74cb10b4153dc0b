import Contracts
import Foundation
import GRDB
import HTTPTypes
import ServiceHTTP
import ServiceStore

/// Usernames: who holds which, and changing one's own (``UsernameRules``).
extension UserStore {
    /// How long a user keeps a username before changing it again, and how long a name given up
    /// stays held from everyone else.
    static let usernameCooldown: TimeInterval = 30 * 86400
    static let usernameHold: TimeInterval = 30 * 86400

    /// Why `key` cannot be `user`'s now (taken by a live account, or held after another gave
    /// it up), or nil when it can.
    static func refusal(
        of key: String, for user: String?, at now: Date, in db: Database
    ) throws -> UsernameRules.Refusal? {
        let holder = try String.fetchOne(
            db.cachedStatement(sql: "SELECT id FROM user WHERE username_key = ? AND deleted_at IS NULL"),
            arguments: [key])
        if let holder, holder != user { return .taken }
        let held = try ReleasedUsernameRecord.fetchOne(db, key: key)
        if let held, held.heldUntil > now, held.userId != user { return .taken }
        return nil
    }

    /// Whether `key` can be had now by someone new.
    func usernameRefusal(of key: String, at now: Date) async throws -> UsernameRules.Refusal? {
        try await database.tracedRead { db in try Self.refusal(of: key, for: nil, at: now, in: db) }
    }

    /// Changes the user's display name, username and bio (those given; a bio of nil removes it). A new username must be
    /// free (409) and the last change at least ``usernameCooldown`` ago (429 with `Retry-After`);
    /// the name given up is held from others for ``usernameHold``. A change of letter case only
    /// is always allowed.
    func updateProfile(
        userID: String, displayName: String?, username: String?, bio: String?? = .none, at now: Date
    ) async throws -> UserRecord? {
        try await database.tracedWrite { db in
            guard var user = try UserRecord.live(id: userID, in: db) else { return nil }
            let before = user
            if case .some(let bio) = bio { user.bio = bio }
            if let displayName { user.displayName = displayName }
            if let username {
                let key = try UsernameRules.requireKey(username)
                if key != user.usernameKey {
                    let wait = user.usernameChangedAt.map {
                        StoredTime.wholeSeconds(from: now, until: $0.addingTimeInterval(Self.usernameCooldown))
                    }
                    if let wait, wait > 0, user.usernameKey != nil {
                        throw ServiceError(
                            .rateLimitExceeded, "A username can be changed once every 30 days.",
                            headers: [.retryAfter: String(wait)])
                    }
                    if try Self.refusal(of: key, for: userID, at: now, in: db) != nil {
                        throw ServiceError(.conflict, "The username \(username) is taken.")
                    }
                    if let old = user.usernameKey {
                        try ReleasedUsernameRecord(
                            usernameKey: old, userId: userID, heldUntil: now.addingTimeInterval(Self.usernameHold)
                        )
                        .upsert(db)
                    }
                    try ReleasedUsernameRecord.deleteOne(db, key: key)
                    user.usernameKey = key
                    user.usernameChangedAt = now
                }
                user.username = username
            }
            user.updatedAt = now
            if (user.displayName, user.username) != (before.displayName, before.username) {
                try Self.saveAnnounced(&user, outbox: outbox, in: db)
            } else {
                try user.update(db)
            }
            if (user.displayName, user.username) != (before.displayName, before.username) {
                try UserSearchRecord.index(
                    userID: user.id, username: user.username, displayName: user.displayName, in: db)
            }
            return user
        }
    }
}
