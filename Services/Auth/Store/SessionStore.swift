import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Sessions and their refresh tokens, and what every service's token verifier learns about a
/// session. Ending a session tells alerts (`session.ended`), in the same transaction.
struct SessionStore: Sendable {
    let database: DatabasePool
    let outbox: Outbox

    /// Creates a session with its first refresh token, in one transaction.
    /// A banned user gets `ACCOUNT_BANNED` and no session.
    func createSession(_ session: SessionRecord, refreshToken: RefreshTokenRecord) async throws {
        try await database.tracedWrite { db in
            try AccountRestrictionRecord.refuseBanned(session.userId, in: db)
            try session.insert(db)
            try refreshToken.insert(db)
        }
    }

    /// Ends one of the user's sessions. Returns false when the user has no such live session.
    @discardableResult
    func revokeSession(
        id: String, userID: String, reason: SessionEndReason, at now: Date
    ) async throws -> Bool {
        try await database.tracedWrite { db in
            guard
                try SessionRecord.filter(key: id).of(userID).live()
                    .updateAll(db, SessionRecord.Columns.revokedAt.set(to: now)) > 0
            else { return false }
            try outbox.enqueue(SessionEnded(userId: userID, sessionIds: [id], reason: reason), in: db)
            return true
        }
    }

    /// Ends every session of the user; returns how many were live.
    @discardableResult
    func revokeAllSessions(userID: String, at now: Date) async throws -> Int {
        try await database.tracedWrite { [outbox] db in
            try Self.revokeAll(userID: userID, reason: .logoutAll, at: now, outbox: outbox, in: db)
        }
    }

    /// Ends every live session of the user but `except`, in the caller's transaction (a
    /// password reset ends them with the change); returns how many ended.
    @discardableResult
    static func revokeAll(
        userID: String, except: String? = nil, reason: SessionEndReason, at now: Date, outbox: Outbox,
        in db: Database
    ) throws -> Int {
        var sessions = SessionRecord.all().of(userID).live()
        if let except { sessions = sessions.filter(Column("id") != except) }
        let live = try sessions.select(Column("id"), as: String.self).fetchAll(db)
        guard !live.isEmpty else { return 0 }
        try sessions.updateAll(db, SessionRecord.Columns.revokedAt.set(to: now))
        try outbox.enqueue(SessionEnded(userId: userID, sessionIds: live, reason: reason), in: db)
        return live.count
    }

    /// What token verifiers learn about a session: nil unless it is live and its user exists.
    func sessionState(id: String, now: Date) async throws -> SessionState? {
        try await database.tracedRead { db in
            guard let session = try SessionRecord.live(id: id, in: db),
                let user = try UserRecord.live(id: session.userId, in: db)
            else { return nil }
            return SessionState(
                sessionId: session.id, userId: session.userId, limited: session.limited,
                roles: try UserStore.roles(userID: session.userId, in: db),
                premium: try EntitlementStore.isPremium(userID: session.userId, now: now, in: db),
                phoneVerified: try PhoneNumberRecord.isVerified(session.userId, in: db),
                emailVerified: user.emailVerifiedAt != nil,
                tenantId: session.tenantId,
                customerRef: session.tenantId == nil
                    ? nil : try CustomerRecord.reference(of: session.userId, in: db),
                attestedAt: session.attestedAt,
                suspendedUntil: try AccountRestrictionRecord.of(session.userId, in: db)?.suspension(at: now))
        }
    }

    /// Live sessions of a user, newest first, after `position`.
    func sessions(userID: String, after position: TimePosition?, limit: Int) async throws -> [SessionRecord] {
        try await database.tracedRead { db in
            try SessionRecord.all().of(userID).live().newestFirst(after: position, limit: limit).fetchAll(db)
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
        try await database.tracedWrite { db in
            guard var current = try RefreshTokenRecord.fetchOne(db, key: presented),
                var session = try SessionRecord.fetchOne(db, key: current.sessionId),
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
                session.revokedAt = now
                try session.update(db)
                try outbox.enqueue(
                    SessionEnded(userId: session.userId, sessionIds: [session.id], reason: .refreshTokenReused), in: db)
                return .rejected(reuse: true)
            }
            guard current.expiresAt > now else { return .rejected(reuse: false) }
            (current.usedAt, current.replacedBy, current.childSealed) = (now, next.tokenHash, sealedNext)
            try current.update(db)
            var next = next
            next.sessionId = session.id
            try next.insert(db)
            session.lastUsedAt = now
            try session.update(db)
            return .rotated(session)
        }
    }
}
