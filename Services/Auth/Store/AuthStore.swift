import Contracts
import Foundation
import GRDB
import ServiceKit

/// Auth's database: users, roles, sessions, refresh tokens, tenants, customers, incidents.
struct AuthStore: Sendable {
    let database: DatabasePool
    let outbox: Outbox

    // MARK: - Users

    /// Inserts the user unless the email is taken. Returns whether a row was inserted; the
    /// caller must not let that difference show.
    func insertUserIfAbsent(_ user: UserRecord) async throws -> Bool {
        try await database.write { db in
            try user.insert(db, onConflict: .ignore)
            return db.changesCount > 0
        }
    }

    /// The account with this address, unless deleted.
    func user(email: String) async throws -> UserRecord? {
        try await database.read { db in
            try UserRecord.filter(UserRecord.Columns.email == email && UserRecord.Columns.deletedAt == nil)
                .fetchOne(db)
        }
    }

    /// The account with this id, unless deleted.
    func user(id: String) async throws -> UserRecord? {
        try await database.read { db in
            try UserRecord.filter(key: id).filter(UserRecord.Columns.deletedAt == nil).fetchOne(db)
        }
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

    /// Ends one of the user's sessions. Returns false when the user has no such live session.
    @discardableResult
    func revokeSession(id: String, userID: String, at now: Date) async throws -> Bool {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE session SET revoked_at = ? WHERE id = ? AND user_id = ? AND revoked_at IS NULL",
                arguments: [now, id, userID])
            return db.changesCount > 0
        }
    }

    /// Ends every session of the user; returns how many were live.
    @discardableResult
    func revokeAllSessions(userID: String, at now: Date) async throws -> Int {
        try await database.write { db in
            try db.execute(
                sql: "UPDATE session SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL",
                arguments: [now, userID])
            return db.changesCount
        }
    }

    /// What token verifiers learn about a session: nil unless it is live and its user exists.
    func sessionState(id: String, now: Date) async throws -> SessionState? {
        try await database.read { db in
            guard
                let session = try SessionRecord.fetchOne(
                    db,
                    sql: """
                        SELECT session.* FROM session JOIN user ON user.id = session.user_id
                        WHERE session.id = ? AND session.revoked_at IS NULL AND user.deleted_at IS NULL
                        """, arguments: [id])
            else { return nil }
            return SessionState(
                sessionId: session.id, userId: session.userID, limited: session.limited,
                roles: try Self.roles(userID: session.userID, in: db),
                premium: try Self.isPremium(userID: session.userID, now: now, in: db),
                phoneVerified: try PhoneNumberRecord.fetchOne(db, key: session.userID) != nil,
                tenantId: session.tenantID)
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
        /// The parent was presented again within the grace window and its child is still
        /// unused: the same child is answered again, sealed as stored.
        case replayed(SessionRecord, childSealed: Data)
        /// Unknown, expired, revoked, or a reused (already rotated) token.
        case rejected(reuse: Bool)
    }

    /// Exchanges the refresh token with hash `presented` for `next`, atomically (one writer,
    /// so concurrent refreshes of one token are serialised: the first rotates, the others
    /// replay its child).
    ///
    /// A token presented again after it was rotated is replayed when it comes within `grace`
    /// of the rotation and the child is unused (a client that lost the answer); otherwise it
    /// is a sign of theft and the whole session, the token family, is revoked (RFC 9700
    /// §4.14.2).
    func rotate(
        presented: String, next: RefreshTokenRecord, sealedNext: Data, grace: TimeInterval, now: Date
    ) async throws -> RotationResult {
        try await database.write { db in
            guard let current = try RefreshTokenRecord.fetchOne(db, key: presented),
                let session = try SessionRecord.fetchOne(db, key: current.sessionID),
                session.revokedAt == nil
            else { return .rejected(reuse: false) }
            if let usedAt = current.usedAt {
                if now.timeIntervalSince(usedAt) <= grace, let sealed = current.childSealed,
                    let childHash = current.replacedBy,
                    let child = try RefreshTokenRecord.fetchOne(db, key: childHash),
                    child.usedAt == nil, child.expiresAt > now
                {
                    return .replayed(session, childSealed: sealed)
                }
                try db.execute(
                    sql: "UPDATE session SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL",
                    arguments: [now, session.id])
                return .rejected(reuse: true)
            }
            guard current.expiresAt > now else { return .rejected(reuse: false) }
            try db.execute(
                sql: "UPDATE refresh_token SET used_at = ?, replaced_by = ?, child_sealed = ? WHERE token_hash = ?",
                arguments: [now, next.tokenHash, sealedNext, presented])
            var next = next
            next.sessionID = session.id
            try next.insert(db)
            var updated = session
            updated.lastUsedAt = now
            try updated.update(db)
            return .rotated(updated)
        }
    }

    // MARK: - Roles

    static func roles(userID: String, in db: Database) throws -> [RoleGrant] {
        try Row.fetchAll(
            db, sql: "SELECT role, tenant_id FROM user_role WHERE user_id = ? ORDER BY role, tenant_id",
            arguments: [userID]
        ).compactMap { row in
            guard let role = Role(rawValue: row["role"]) else { return nil }
            let tenant: String = row["tenant_id"]
            return RoleGrant(role: role, tenantId: tenant.isEmpty ? nil : tenant)
        }
    }

    func roles(userID: String) async throws -> [RoleGrant] {
        try await database.read { db in try Self.roles(userID: userID, in: db) }
    }

    /// Grants or revokes a role; returns the user's roles afterwards, or nil when there is no
    /// such user. A tenant role needs an existing tenant (nil otherwise, too).
    func changeRole(userID: String, grant: RoleGrant, granted: Bool) async throws -> [RoleGrant]? {
        try await database.write { db in
            guard try UserRecord.filter(key: userID).filter(UserRecord.Columns.deletedAt == nil).fetchCount(db) == 1
            else { return nil }
            if let tenant = grant.tenantId, try TenantRecord.fetchOne(db, key: tenant) == nil { return nil }
            if granted {
                try db.execute(
                    sql: "INSERT OR IGNORE INTO user_role (user_id, role, tenant_id) VALUES (?, ?, ?)",
                    arguments: [userID, grant.role.rawValue, grant.tenantId ?? ""])
            } else {
                try db.execute(
                    sql: "DELETE FROM user_role WHERE user_id = ? AND role = ? AND tenant_id = ?",
                    arguments: [userID, grant.role.rawValue, grant.tenantId ?? ""])
            }
            return try Self.roles(userID: userID, in: db)
        }
    }
}
