import Contracts
import Foundation
import ServiceHTTP

/// Recent proof of the account holder, beyond an access token that may have been left on an
/// unlocked phone: the password, or (for an account linked to Apple) a Sign in with Apple
/// identity token issued in the last minutes. Deleting the account, changing the password and
/// changing the address ask for it.
struct Reauthentication: Sendable {
    let users: UserStore
    let hasher: PasswordHasher
    let apple: AppleSignIn?

    /// Returns when `password` or the Apple token proves `user`; else 401 `REAUTH_REQUIRED`.
    func confirm(_ user: UserRecord, password: String?, appleIdentityToken: String?, nonce: String?) async throws {
        if let password, let hash = user.passwordHash {
            try Credentials.validatePresentedPassword(password)
            guard await hasher.verify(password, against: hash) else { throw Self.required }
            return
        }
        if let token = appleIdentityToken, let apple, let account = try await users.appleAccount(userID: user.id) {
            guard try await apple.isRecent(token, nonce: nonce, sub: account.sub) else { throw Self.required }
            return
        }
        throw Self.required
    }

    static let required = ServiceError(
        .reauthRequired,
        "Confirm it is you: send your password, or a Sign in with Apple token from the last 10 minutes.")
}
