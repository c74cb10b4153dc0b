import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Accounts: users, their roles and their Sign in with Apple links.
struct UserStore: Sendable {
    let database: DatabasePool
    let outbox: Outbox

    /// Inserts the user unless the email is taken. Returns whether a row was inserted; the
    /// caller must not let that difference show.
    /// A username it names must be free (409 otherwise, decided in the same transaction).
    /// `then` runs in the same transaction either way (registration's mail request).
    func insertUserIfAbsent(
        _ user: UserRecord, then: @escaping @Sendable (Database) throws -> Void = { _ in }
    ) async throws
        -> Bool
    {
        try await database.tracedWrite { [outbox] db in
            if let key = user.usernameKey, try Self.refusal(of: key, for: nil, at: user.createdAt, in: db) != nil {
                throw ServiceError(.conflict, "The username \(user.username ?? key) is taken.")
            }
            var user = user
            user.profileRevision = 1
            try user.insert(db, onConflict: .ignore)
            let inserted = db.changesCount > 0
            try then(db)
            guard inserted else { return false }
            try outbox.enqueue(user.profileChanged, in: db)
            try UserSearchRecord.index(
                userID: user.id, username: user.username, displayName: user.displayName, in: db)
            return true
        }
    }

    /// The account with this address, unless deleted.
    func user(email: String) async throws -> UserRecord? {
        try await database.tracedRead { db in
            try UserRecord.filter(UserRecord.Columns.email == email).live().fetchOne(db)
        }
    }

    /// The moderation action that banned the account, while it stands.
    func banActionID(of userID: String) async throws -> String? {
        try await database.tracedRead { db in
            try AccountRestrictionRecord.fetchOne(db, key: userID).flatMap { $0.bannedAt == nil ? nil : $0.banActionId }
        }
    }

    /// The account with this id, unless deleted.
    func user(id: String) async throws -> UserRecord? {
        try await database.tracedRead { db in try UserRecord.live(id: id, in: db) }
    }

    /// The live user whose username is `key` now.
    func user(usernameKey key: String) async throws -> UserRecord? {
        try await database.tracedRead { db in
            try UserRecord.filter(UserRecord.Columns.usernameKey == key).live().fetchOne(db)
        }
    }

    /// App users (not deleted, not PIN customers) found by ``NameSearch``, at most `limit`,
    /// whole-word matches first.
    /// Users whose username starts with `usernamePrefix` come first (the exact one first).
    /// With a `viewer`, never the viewer, anyone a block stands between them and the viewer, or
    /// anyone the viewer muted.
    func search(
        _ query: NameSearch.Query, usernamePrefix: String? = nil, viewer: String? = nil, limit: Int
    ) async throws -> [UserSummary] {
        // The viewer's exclusions, in the SQL of both word queries (`u` is the user row).
        let hidden =
            viewer == nil
            ? ""
            : """
            AND u.id != :viewer AND \(BlockMirror.neitherBlocks(":viewer", "u.id"))
            AND \(MuteMirror.notMuted(by: ":viewer", "u.id"))
            """
        return try await database.tracedRead { db in
            switch query {
            case .email(let email):
                let found = try UserRecord.filter(UserRecord.Columns.email == email).live()
                    .filter(sql: "id NOT IN (SELECT user_id FROM customer)").fetchOne(db)
                return found.map { [$0.summary] } ?? []
            case .words(let words):
                let byUsername =
                    try usernamePrefix.map { prefix in
                        try UserRecord.fetchAll(
                            db.cachedStatement(
                                sql: """
                                    SELECT u.* FROM user u WHERE username_key >= :from AND username_key < :to
                                    AND deleted_at IS NULL AND id NOT IN (SELECT user_id FROM customer) \(hidden)
                                    ORDER BY length(username_key), username_key LIMIT :limit
                                    """),
                            arguments: [
                                "from": prefix, "to": prefix + "\u{10FFFF}", "limit": limit, "viewer": viewer,
                            ])
                    } ?? []
                // FTS5: every word starts a word of the username or the name; the best bm25
                // candidates (a username hit weighs double) are then ranked whole words first.
                let matching = try UserRecord.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT u.* FROM user_fts f JOIN user_search s ON s.id = f.rowid JOIN user u ON u.id = s.user_id
                            WHERE user_fts MATCH :query AND u.deleted_at IS NULL \(hidden)
                            ORDER BY bm25(user_fts, 2.0, 1.0), s.id LIMIT :limit
                            """),
                    arguments: ["query": NameSearch.ftsQuery(words), "limit": limit * 5, "viewer": viewer]
                ).map(\.summary)
                let first = byUsername.map(\.summary)
                let shown = Set(first.map(\.id))
                return Array(
                    (first + NameSearch.rank(matching, for: words).filter { !shown.contains($0.id) }).prefix(limit))
            }
        }
    }

    func updatePasswordHash(userID: String, hash: String, at now: Date) async throws {
        _ = try await database.tracedWrite { db in
            try UserRecord.filter(key: userID).updateAll(
                db, UserRecord.Columns.passwordHash.set(to: hash), UserRecord.Columns.updatedAt.set(to: now))
        }
    }

    // MARK: - Roles

    static func roles(userID: String, in db: Database) throws -> [RoleGrant] {
        // A statement the connection keeps: every session check reads the roles.
        try UserRoleRecord.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM user_role WHERE user_id = ? ORDER BY role, tenant_id"),
            arguments: [userID]
        ).compactMap(\.grant)
    }

    func roles(userID: String) async throws -> [RoleGrant] {
        try await database.tracedRead { db in try Self.roles(userID: userID, in: db) }
    }

    /// Grants or revokes a role; returns the user's roles afterwards, or nil when there is no
    /// such user. A tenant role needs an existing tenant (nil otherwise, too).
    func changeRole(userID: String, grant: RoleGrant, granted: Bool) async throws -> [RoleGrant]? {
        try await database.tracedWrite { db in
            guard try UserRecord.filter(key: userID).live().isEmpty(db) == false else { return nil }
            if let tenant = grant.tenantId, try TenantRecord.exists(db, key: tenant) == false { return nil }
            let row = UserRoleRecord(userId: userID, grant: grant)
            if granted {
                try row.insert(db, onConflict: .ignore)
            } else {
                try row.delete(db)
            }
            return try Self.roles(userID: userID, in: db)
        }
    }

    // MARK: - Sign in with Apple

    /// Opens a session for an Apple identity, creating the user on its first sign-in (found by
    /// `sub` afterwards). Apple shares the email only once; an address already used by another
    /// account is kept on the Apple link but not on the new user. A new refresh token from
    /// Apple replaces the stored one. Returns the user id.
    func signInWithApple(
        _ identity: AppleIdentity, appleRefreshToken: String?, newUser: UserRecord, session: SessionRecord,
        refreshToken: RefreshTokenRecord, now: Date
    ) async throws -> String {
        try await database.tracedWrite { db in
            var userID: String
            if var account = try AppleAccountRecord.fetchOne(db, key: identity.sub) {
                userID = account.userId
                guard try UserRecord.filter(key: userID).live().isEmpty(db) == false else {
                    throw ServiceError(.conflict, "This account is being deleted; sign in again once it is gone.")
                }
                if let email = identity.email { account.email = email }
                account.isPrivateEmail = identity.isPrivateEmail
                if let appleRefreshToken { account.refreshToken = appleRefreshToken }
                account.updatedAt = now
                try account.update(db)
            } else {
                var user = newUser
                if let email = user.email, try UserRecord.filter(UserRecord.Columns.email == email).isEmpty(db) == false
                {
                    user.email = nil
                }
                try Self.insertAnnounced(user, outbox: outbox, in: db)
                try UserSearchRecord.index(
                    userID: user.id, username: user.username, displayName: user.displayName, in: db)
                userID = user.id
                try AppleAccountRecord(
                    sub: identity.sub, userId: user.id, email: identity.email, isPrivateEmail: identity.isPrivateEmail,
                    clientId: identity.clientID, refreshToken: appleRefreshToken, createdAt: now, updatedAt: now
                ).insert(db)
            }
            var session = session
            session.userId = userID
            try AccountRestrictionRecord.refuseBanned(userID, in: db)
            try session.insert(db)
            try refreshToken.insert(db)
            return userID
        }
    }

    func appleAccount(userID: String) async throws -> AppleAccountRecord? {
        try await database.tracedRead { db in
            try AppleAccountRecord.filter(AppleAccountRecord.Columns.userId == userID).fetchOne(db)
        }
    }
}
