import Contracts
import Foundation
import GRDB
import ServiceKit

/// Auth's database: users, sessions and refresh tokens.
struct AuthStore: Sendable {
    let database: DatabasePool

    // MARK: - Users

    /// Inserts the user unless the email is taken. Returns whether a row was inserted; the
    /// caller must not let that difference show.
    func insertUserIfAbsent(_ user: UserRecord) async throws -> Bool {
        try await database.write { db in
            try user.insert(db, onConflict: .ignore)
            return db.changesCount > 0
        }
    }

    func user(email: String) async throws -> UserRecord? {
        try await database.read { db in
            try UserRecord.filter(UserRecord.Columns.email == email).fetchOne(db)
        }
    }

    func user(id: String) async throws -> UserRecord? {
        try await database.read { db in try UserRecord.fetchOne(db, key: id) }
    }

    func updatePasswordHash(userID: String, hash: String, at now: Date) async throws {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE user SET password_hash = ?, updated_at = ? WHERE id = ?", arguments: [hash, now, userID])
        }
    }

    // MARK: - Sessions

    /// Creates a session with its first refresh token, in one transaction.
    func createSession(_ session: SessionRecord, refreshToken: RefreshTokenRecord) async throws {
        try await database.write { db in
            try session.insert(db)
            try refreshToken.insert(db)
        }
    }

    /// A session that is still live (not revoked).
    func liveSession(id: String, userID: String) async throws -> SessionRecord? {
        try await database.read { db in
            try SessionRecord.fetchOne(
                db, sql: "SELECT * FROM session WHERE id = ? AND user_id = ? AND revoked_at IS NULL",
                arguments: [id, userID])
        }
    }

    func revokeSession(id: String, userID: String, at now: Date) async throws {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE session SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL",
                arguments: [now, id, userID])
        }
    }

    /// Live sessions of a user, newest first, after `position`.
    func sessions(userID: String, after position: TimePosition?, limit: Int) async throws -> [SessionRecord] {
        try await database.read { db in
            try SessionRecord.filter(sql: "user_id = ? AND revoked_at IS NULL", arguments: [userID])
                .newestFirst(after: position, limit: limit).fetchAll(db)
        }
    }

    // MARK: - Refresh rotation

    enum RotationResult {
        case rotated(SessionRecord)
        /// Unknown, expired, revoked, or a reused (already rotated) token.
        case rejected(reuse: Bool)
    }

    /// Exchanges the refresh token with hash `presented` for `next`, atomically. A token that
    /// was already rotated is a sign it was stolen: the whole session is revoked.
    func rotate(presented: String, next: RefreshTokenRecord, now: Date) async throws -> RotationResult {
        try await database.write { db in
            guard let current = try RefreshTokenRecord.fetchOne(db, key: presented),
                let session = try SessionRecord.fetchOne(db, key: current.sessionID),
                session.revokedAt == nil
            else { return .rejected(reuse: false) }
            if current.usedAt != nil {
                try db.execute(
                    sql: "UPDATE session SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                    arguments: [now, session.id])
                return .rejected(reuse: true)
            }
            guard current.expiresAt > now else { return .rejected(reuse: false) }
            try db.execute(
                sql: "UPDATE refresh_token SET used_at = ?, replaced_by = ? WHERE token_hash = ?",
                arguments: [now, next.tokenHash, presented])
            var next = next
            next.sessionID = session.id
            try next.insert(db)
            var updated = session
            updated.lastUsedAt = now
            try updated.update(db)
            return .rotated(updated)
        }
    }
}
