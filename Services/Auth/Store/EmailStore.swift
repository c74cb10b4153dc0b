import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Email: proving addresses, resetting and changing passwords, changing the address and
/// taking that back, signing in by a mailed code. Every change commits with the mail it
/// sends (``AccountMail``) and with the sessions it ends.
struct EmailStore: Sendable {
    let database: DatabasePool
    let outbox: Outbox
    let mail: AccountMail

    // MARK: - Mail asked for by address

    /// Registration's, reset's or a sign-in code's mail, decided later by the `mail.request`
    /// job (``AccountMail/request(_:in:)``).
    func request(_ request: AccountMail.Request) async throws -> RateDecision {
        try await database.tracedWrite { [mail] db in try mail.request(request, in: db) }
    }

    // MARK: - Verification

    /// Mails the user's address a new code and link; the address and until when they work.
    /// 409 when the address is already proven or the account has none.
    func sendVerification(userID: String) async throws -> (RateDecision, EmailCodeSent?) {
        try await database.tracedWrite { [mail] db in
            guard let user = try UserRecord.live(id: userID, in: db) else {
                throw ServiceError.notFound("User")
            }
            guard let email = user.email else { throw ServiceError(.conflict, "This account has no email address.") }
            guard user.emailVerifiedAt == nil else {
                throw ServiceError(.conflict, "This address is already verified.")
            }
            let decision = try mail.admit(email, .verify, in: db)
            guard decision.allowed else { return (decision, nil) }
            try mail.verification(for: user, in: db)
            return (decision, EmailCodeSent(email: email, expiresAt: mail.clock.now() + mail.settings.verificationTTL))
        }
    }

    /// Proves the user's address with the mailed code (one attempt counted either way).
    func verify(userID: String, code: String) async throws -> VerifiedEmail? {
        try await database.tracedWrite { db in
            guard let challenge = try spend(code: code, userID: userID, purpose: .verify, in: db),
                let user = try verified(userID: userID, email: challenge.email, in: db)
            else { return nil }
            return VerifiedEmail(email: user.email!, verifiedAt: user.emailVerifiedAt!)
        }
    }

    /// Proves an address with the mailed link's token.
    func verify(linkToken: String) async throws -> VerifiedEmail? {
        try await database.tracedWrite { db in
            guard let challenge = try take(linkToken: linkToken, purpose: .verify, in: db),
                let user = try verified(userID: challenge.userId, email: challenge.email, in: db)
            else { return nil }
            return VerifiedEmail(email: user.email!, verifiedAt: user.emailVerifiedAt!)
        }
    }

    // MARK: - Passwords

    /// Whether a reset link with this token is live (asked before the new password is hashed).
    func resetAvailable(linkToken: String) async throws -> Bool {
        try await database.tracedRead { [mail] db in
            try EmailChallengeRecord.filter(EmailChallengeRecord.Columns.linkHash == EmailCodes.linkDigest(linkToken))
                .filter(EmailChallengeRecord.Columns.purpose == EmailPurpose.reset.rawValue)
                .filter(EmailChallengeRecord.Columns.expiresAt > mail.clock.now()).isEmpty(db) == false
        }
    }

    /// Sets a new password from a reset link made for the current one: ends every session,
    /// drops every other code and link, proves the address, and mails the notice.
    func resetPassword(linkToken: String, newHash: String) async throws -> Bool {
        try await database.tracedWrite { [mail, outbox] db in
            guard let challenge = try take(linkToken: linkToken, purpose: .reset, in: db),
                var user = try UserRecord.live(id: challenge.userId, in: db),
                user.email == challenge.email,
                challenge.passwordStamp == EmailCodes.passwordStamp(user.passwordHash)
            else { return false }
            let now = mail.clock.now()
            user.passwordHash = newHash
            user.emailVerifiedAt = user.emailVerifiedAt ?? now
            user.updatedAt = now
            try user.update(db)
            try EmailChallengeRecord.filter(
                EmailChallengeRecord.Columns.userId == user.id
                    && EmailChallengeRecord.Columns.purpose != EmailPurpose.undo.rawValue
            ).deleteAll(db)
            try SessionStore.revokeAll(userID: user.id, reason: .passwordChanged, at: now, outbox: outbox, in: db)
            try mail.passwordChanged(user, signedOut: true, in: db)
            return true
        }
    }

    /// Sets a new password for a signed-in user who proved it is them: `keepSession` stays, the
    /// others end unless `keepOthers`; pending reset links die; the notice is mailed. Returns
    /// how many sessions ended.
    func changePassword(userID: String, newHash: String, keepSession: String, keepOthers: Bool) async throws -> Int {
        try await database.tracedWrite { [mail, outbox] db in
            guard var user = try UserRecord.live(id: userID, in: db) else {
                throw ServiceError.notFound("User")
            }
            let now = mail.clock.now()
            user.passwordHash = newHash
            user.updatedAt = now
            try user.update(db)
            try EmailChallengeRecord.all().of(userID, .reset).deleteAll(db)
            let ended =
                keepOthers
                ? 0
                : try SessionStore.revokeAll(
                    userID: userID, except: keepSession, reason: .passwordChanged, at: now, outbox: outbox, in: db)
            try mail.passwordChanged(user, signedOut: false, in: db)
            return ended
        }
    }

    // MARK: - Changing the address

    /// Mails `newEmail` a code and link that make it the account's address.
    func requestEmailChange(userID: String, newEmail: String) async throws -> (RateDecision, EmailCodeSent?) {
        try await database.tracedWrite { [mail] db in
            guard let user = try UserRecord.live(id: userID, in: db) else {
                throw ServiceError.notFound("User")
            }
            guard user.email != newEmail else {
                throw ServiceError(.conflict, "This is already the account's address.")
            }
            let decision = try mail.admit(newEmail, .change, in: db)
            guard decision.allowed else { return (decision, nil) }
            try mail.confirmNewEmail(for: user, newEmail: newEmail, in: db)
            return (
                decision, EmailCodeSent(email: newEmail, expiresAt: mail.clock.now() + mail.settings.verificationTTL)
            )
        }
    }

    /// Makes the mailed new address the account's, by code (signed in).
    func confirmEmailChange(userID: String, code: String) async throws -> VerifiedEmail? {
        try await database.tracedWrite { db in
            guard let challenge = try spend(code: code, userID: userID, purpose: .change, in: db) else {
                return nil
            }
            return try changeEmail(challenge, in: db)
        }
    }

    /// Makes the mailed new address the account's, by link.
    func confirmEmailChange(linkToken: String) async throws -> VerifiedEmail? {
        try await database.tracedWrite { db in
            guard let challenge = try take(linkToken: linkToken, purpose: .change, in: db) else { return nil }
            return try changeEmail(challenge, in: db)
        }
    }

    /// Puts the old address back from the link mailed to it: every session ends, every code
    /// and link dies (a reset link sent to the other address too).
    func undoEmailChange(linkToken: String) async throws -> VerifiedEmail? {
        try await database.tracedWrite { [mail, outbox] db in
            guard let challenge = try take(linkToken: linkToken, purpose: .undo, in: db),
                var user = try UserRecord.live(id: challenge.userId, in: db)
            else { return nil }
            try Self.refuseTaken(challenge.email, by: user.id, in: db)
            let now = mail.clock.now()
            user.email = challenge.email
            user.emailVerifiedAt = now
            user.updatedAt = now
            try user.update(db)
            try EmailChallengeRecord.filter(EmailChallengeRecord.Columns.userId == user.id).deleteAll(db)
            try SessionStore.revokeAll(userID: user.id, reason: .emailRestored, at: now, outbox: outbox, in: db)
            return VerifiedEmail(email: challenge.email, verifiedAt: now)
        }
    }

    // MARK: - Sign-in codes

    /// The account a mailed sign-in code opens (one attempt counted either way); nil for a
    /// wrong, expired or used-up code and for an address without an account alike.
    func signIn(email: String, code: String) async throws -> UserRecord? {
        try await database.tracedWrite { db in
            guard let user = try UserRecord.filter(UserRecord.Columns.email == email).live().fetchOne(db),
                try spend(code: code, userID: user.id, purpose: .signIn, in: db) != nil
            else { return nil }
            return try verified(userID: user.id, email: email, in: db) ?? user
        }
    }

    // MARK: - Housekeeping

    /// Deletes codes and links past their lifetime and mail counts older than an hour; how
    /// many of each.
    func removeExpired(at now: Date) async throws -> (challenges: Int, requests: Int) {
        try await database.tracedWrite { db in
            let challenges = try EmailChallengeRecord.filter(EmailChallengeRecord.Columns.expiresAt <= now).deleteAll(
                db)
            let requests = try MailRequestRecord.filter(
                MailRequestRecord.Columns.requestedAt <= now.addingTimeInterval(-3600)
            ).deleteAll(db)
            return (challenges, requests)
        }
    }

    // MARK: - Parts

    /// Counts an attempt at the user's live challenge of `purpose`; the challenge, deleted,
    /// when `code` is its code.
    private func spend(
        code: String, userID: String, purpose: EmailPurpose, in db: Database
    ) throws
        -> EmailChallengeRecord?
    {
        let now = mail.clock.now()
        guard
            var challenge = try EmailChallengeRecord.all().of(userID, purpose)
                .filter(EmailChallengeRecord.Columns.expiresAt > now).fetchOne(db),
            challenge.attempts < mail.settings.maxAttempts
        else { return nil }
        guard mail.codes.matches(code, challenge) else {
            challenge.attempts += 1
            try challenge.update(db)
            return nil
        }
        try challenge.delete(db)
        return challenge
    }

    /// The live challenge of `purpose` the link's token names, deleted (a link works once).
    private func take(linkToken: String, purpose: EmailPurpose, in db: Database) throws -> EmailChallengeRecord? {
        guard
            let challenge =
                try EmailChallengeRecord
                .filter(EmailChallengeRecord.Columns.linkHash == EmailCodes.linkDigest(linkToken)).fetchOne(db),
            challenge.purpose == purpose, challenge.expiresAt > mail.clock.now()
        else { return nil }
        try challenge.delete(db)
        return challenge
    }

    /// Marks `email` proven when it is still the user's address; the user, or nil.
    private func verified(userID: String, email: String, in db: Database) throws -> UserRecord? {
        guard var user = try UserRecord.live(id: userID, in: db), user.email == email else {
            return nil
        }
        if user.emailVerifiedAt == nil {
            user.emailVerifiedAt = mail.clock.now()
            try user.update(db)
        }
        try EmailChallengeRecord.all().of(userID, .verify).deleteAll(db)
        return user
    }

    /// Moves the account to the challenge's new address and mails the old one its undo link.
    private func changeEmail(_ challenge: EmailChallengeRecord, in db: Database) throws -> VerifiedEmail {
        guard var user = try UserRecord.live(id: challenge.userId, in: db) else {
            throw ServiceError.notFound("User")
        }
        try Self.refuseTaken(challenge.email, by: user.id, in: db)
        let now = mail.clock.now()
        let old = user.email
        user.email = challenge.email
        user.emailVerifiedAt = now
        user.updatedAt = now
        try user.update(db)
        // Links made for the old address (a reset, a verification) no longer fit the account.
        try EmailChallengeRecord.filter(
            EmailChallengeRecord.Columns.userId == user.id
                && EmailChallengeRecord.Columns.purpose != EmailPurpose.undo.rawValue
        ).deleteAll(db)
        if let old { try mail.emailChanged(user, from: old, to: challenge.email, in: db) }
        return VerifiedEmail(email: challenge.email, verifiedAt: now)
    }

    /// 409 when another account holds `email`.
    private static func refuseTaken(_ email: String, by userID: String, in db: Database) throws {
        guard try UserRecord.filter(UserRecord.Columns.email == email && Column("id") != userID).isEmpty(db) else {
            throw ServiceError(.conflict, "Another account uses this address.")
        }
    }
}
