import Contracts
import Foundation
import GRDB
import ServiceKit

/// Sign in with Apple accounts.
extension AuthStore {
    /// Opens a session for an Apple identity, creating the user on its first sign-in (found by
    /// `sub` afterwards). Apple shares the email only once; an address already used by another
    /// account is kept on the Apple link but not on the new user. A new refresh token from
    /// Apple replaces the stored one. Returns the user id.
    func signInWithApple(
        _ identity: AppleIdentity, appleRefreshToken: String?, newUser: UserRecord, session: SessionRecord,
        refreshToken: RefreshTokenRecord, now: Date
    ) async throws -> String {
        try await database.write { db in
            var userID: String
            if var account = try AppleAccountRecord.fetchOne(db, key: identity.sub) {
                userID = account.userID
                guard try UserRecord.filter(key: userID).filter(UserRecord.Columns.deletedAt == nil).fetchCount(db) == 1
                else {
                    throw ServiceError(.conflict, "This account is being deleted; sign in again once it is gone.")
                }
                if let email = identity.email { account.email = email }
                account.isPrivateEmail = identity.isPrivateEmail
                if let appleRefreshToken { account.refreshToken = appleRefreshToken }
                account.updatedAt = now
                try account.update(db)
            } else {
                var user = newUser
                if let email = user.email,
                    try UserRecord.filter(UserRecord.Columns.email == email).fetchCount(db) > 0
                {
                    user.email = nil
                }
                try user.insert(db)
                userID = user.id
                try AppleAccountRecord(
                    sub: identity.sub, userID: user.id, email: identity.email, isPrivateEmail: identity.isPrivateEmail,
                    clientID: identity.clientID, refreshToken: appleRefreshToken, createdAt: now, updatedAt: now
                ).insert(db)
            }
            var session = session
            session.userID = userID
            try session.insert(db)
            try refreshToken.insert(db)
            return userID
        }
    }

    func appleAccount(userID: String) async throws -> AppleAccountRecord? {
        try await database.read { db in
            try AppleAccountRecord.filter(sql: "user_id = ?", arguments: [userID]).fetchOne(db)
        }
    }
}
