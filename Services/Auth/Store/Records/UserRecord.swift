import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `user`.
struct UserRecord: ServiceRecord {
    static let databaseTableName = "user"

    var id: String
    /// Lowercased; unique. Nil for PIN customers.
    var email: String?
    /// Argon2id PHC string. Nil for accounts without a password (PIN customers).
    var passwordHash: String?
    var displayName: String
    var createdAt: Date
    var updatedAt: Date
    /// Set when the account was deleted; the row stays until every service has confirmed.
    var deletedAt: Date? = nil
    /// As the user typed it; `usernameKey` (lowercase) is unique.
    var username: String? = nil
    var usernameKey: String? = nil
    var usernameChangedAt: Date? = nil
    /// The profile's bio, up to 160 characters.
    var bio: String? = nil
    /// The user's own photo shown as their avatar (media holds a public reference to it).
    var avatarMediaId: String? = nil
    /// The revision of the last `profile.changed` sent for the user.
    var profileRevision = 0
    /// When the user proved `email` is theirs (a mailed code or link, or Apple's word).
    var emailVerifiedAt: Date? = nil

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case email
        case passwordHash = "password_hash"
        case updatedAt = "updated_at"
        case deletedAt = "deleted_at"
        case usernameKey = "username_key"
        case emailVerifiedAt = "email_verified_at"
    }

    /// What lists show of the user (``ProfileChanged``), at its current revision; a deleted
    /// account as such.
    var profileChanged: ProfileChanged {
        guard deletedAt == nil else {
            return ProfileChanged(
                userId: id, username: nil, displayName: "", avatarMediaId: nil, deleted: true,
                revision: profileRevision)
        }
        return ProfileChanged(
            userId: id, username: username, displayName: displayName, avatarMediaId: avatarMediaId,
            revision: profileRevision)
    }

    /// The profile as a moderator judges it (what others see of the account).
    var moderationSubject: ModerationSubject {
        let text = [displayName, username.map { "@\($0)" }, bio].compactMap { $0 }.joined(separator: "\n")
        return ModerationSubject(
            type: .user, id: id, ownerId: id, text: text, mediaIds: avatarMediaId.map { [$0] } ?? [],
            createdAt: createdAt)
    }

    var summary: UserSummary {
        UserSummary(
            id: id, displayName: displayName, username: username,
            avatarURL: UserSummary.avatarURL(mediaId: avatarMediaId))
    }

    func profile(roles: [RoleGrant]) -> UserProfile {
        UserProfile(
            id: id, email: email, displayName: displayName, username: username, bio: bio,
            avatarURL: UserSummary.avatarURL(mediaId: avatarMediaId), createdAt: createdAt, roles: roles)
    }

    func publicProfile(counts: ProfileCounts, stats: ProfileStats) -> PublicProfile {
        PublicProfile(
            id: id, username: username, displayName: displayName, bio: bio,
            avatarURL: UserSummary.avatarURL(mediaId: avatarMediaId), counts: counts, stats: stats,
            createdAt: createdAt)
    }
}

extension UserRecord {
    /// The account `id` unless it is deleted (or being deleted), read with a statement the
    /// connection keeps: auth reads it for every request it answers (the session check), and
    /// GRDB's query interface writes and compiles its SQL again each time.
    static func live(id: String, in db: Database) throws -> UserRecord? {
        try fetchOne(
            db.cachedStatement(sql: "SELECT * FROM user WHERE id = ? AND deleted_at IS NULL"), arguments: [id])
    }
}

extension DerivableRequest<UserRecord> {
    /// Accounts that are not deleted (or being deleted).
    func live() -> Self { filter(UserRecord.Columns.deletedAt == nil) }
}
