import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// The account mails. Each one makes its challenge (a code, a link, or both, stored as
/// digests) and schedules its message as a `mail.send` job, in the caller's transaction: a
/// request that committed has its mail on the way, across crashes, and a request that rolled
/// back sent nothing.
///
/// Mail asked for by address from a public route (registration, "forgot password", a sign-in
/// code) goes through a `mail.request` job first: the route writes the same two rows whether
/// or not the address has an account, and the job decides which mail, if any, goes. Neither
/// status, body nor timing of the answer tells the two apart. The job writes the challenge
/// and the message in the transaction that completes it, so one request sends at most one
/// mail.
struct AccountMail: Sendable {
    static let sendKind: JobKind = "mail.send"
    static let requestKind: JobKind = "mail.request"

    /// A mail asked for by address.
    struct Request: Codable, Sendable, Equatable {
        var purpose: EmailPurpose
        var address: String
    }

    let settings: MailSettings
    let templates: MailTemplates
    let codes: EmailCodes
    let jobs: JobQueue
    let clock: any WallClock
    let entropy: any Entropy

    /// Runs the mail jobs: `mail.send` through `transport`, `mail.request` by looking the
    /// address up.
    func register(on runner: inout JobRunner, transport: any MailTransport) {
        runner.on(Self.sendKind) { (message: MailMessage, _) in try await transport.send(message) }
        runner.complete(Self.requestKind) { (request: Request, _) in
            .done(recording: { db in try answer(request, in: db) })
        }
    }

    // MARK: - Limits and requests by address

    /// Counts one mail for `address` unless it had `perAddressPerHour` in the last hour; the
    /// verdict, the same for every address.
    func admit(_ address: String, _ purpose: EmailPurpose, in db: Database) throws -> RateDecision {
        let now = clock.now()
        let times = try MailRequestRecord.filter(
            MailRequestRecord.Columns.address == address
                && MailRequestRecord.Columns.requestedAt > now.addingTimeInterval(-3600)
        ).select(MailRequestRecord.Columns.requestedAt, as: Date.self).fetchAll(db)
        let decision = Self.policy(settings).decide(after: times, now: now)
        if decision.allowed { try MailRequestRecord(address: address, purpose: purpose, requestedAt: now).insert(db) }
        return decision
    }

    static func policy(_ settings: MailSettings) -> RatePolicy {
        RatePolicy(name: "mail", limit: settings.perAddressPerHour, window: 3600)
    }

    /// 429 for an address past its hourly limit, with the limit's headers.
    static func tooMany(_ policy: RatePolicy, _ decision: RateDecision) -> ServiceError {
        .rateLimited("Too many mails to this address this hour.", policy: policy, decision: decision)
    }

    /// Admits `request` and schedules its `mail.request` job; the verdict.
    func request(_ request: Request, in db: Database) throws -> RateDecision {
        let decision = try admit(request.address, request.purpose, in: db)
        if decision.allowed {
            try jobs.schedule(Self.requestKind, key: entropy.uuid().uuidString.lowercased(), payload: request, in: db)
        }
        return decision
    }

    /// What a `mail.request` sends: nothing for an address without an account.
    func answer(_ request: Request, in db: Database) throws {
        guard let user = try UserRecord.filter(UserRecord.Columns.email == request.address).live().fetchOne(db),
            try AccountRestrictionRecord.fetchOne(db, key: user.id)?.bannedAt == nil
        else { return }
        switch request.purpose {
        case .verify:
            if user.emailVerifiedAt == nil {
                try verification(for: user, in: db)
            } else {
                try alreadyRegistered(user, in: db)
            }
        case .reset: try reset(for: user, in: db)
        case .signIn: try signInCode(for: user, in: db)
        case .change, .undo: return
        }
    }

    // MARK: - The mails

    /// A code and a link that prove `user.email`.
    func verification(for user: UserRecord, in db: Database) throws {
        guard let email = user.email else { return }
        let (code, link) = try challenge(
            .verify, for: user, email: email, code: true, link: true, ttl: settings.verificationTTL, in: db)
        try send(
            .verifyEmail, to: email,
            [
                "code": code!, "link": settings.links.url(settings.links.verifyEmail, token: link!),
                "expiresIn": Self.duration(settings.verificationTTL),
            ], in: db)
    }

    /// A registration with a taken address: the owner is told, with a way back in.
    func alreadyRegistered(_ user: UserRecord, in db: Database) throws {
        guard let email = user.email else { return }
        let (_, link) = try challenge(
            .reset, for: user, email: email, code: false, link: true, ttl: settings.resetTTL,
            stamp: EmailCodes.passwordStamp(user.passwordHash), in: db)
        try send(
            .alreadyRegistered, to: email,
            [
                "link": settings.links.url(settings.links.resetPassword, token: link!),
                "expiresIn": Self.duration(settings.resetTTL),
            ], in: db)
    }

    /// A link that sets a new password, tied to the current one.
    func reset(for user: UserRecord, in db: Database) throws {
        guard let email = user.email else { return }
        let (_, link) = try challenge(
            .reset, for: user, email: email, code: false, link: true, ttl: settings.resetTTL,
            stamp: EmailCodes.passwordStamp(user.passwordHash), in: db)
        try send(
            .resetPassword, to: email,
            [
                "link": settings.links.url(settings.links.resetPassword, token: link!),
                "expiresIn": Self.duration(settings.resetTTL),
            ], in: db)
    }

    /// The notice that the password changed.
    func passwordChanged(_ user: UserRecord, signedOut: Bool, in db: Database) throws {
        guard let email = user.email else { return }
        try send(.passwordChanged, to: email, ["when": Self.moment(clock.now()), "signedOut": signedOut], in: db)
    }

    /// A code and a link that prove `newEmail` before it replaces the account's address.
    func confirmNewEmail(for user: UserRecord, newEmail: String, in db: Database) throws {
        let (code, link) = try challenge(
            .change, for: user, email: newEmail, code: true, link: true, ttl: settings.verificationTTL, in: db)
        try send(
            .confirmNewEmail, to: newEmail,
            [
                "code": code!, "link": settings.links.url(settings.links.confirmEmail, token: link!),
                "newEmail": newEmail, "expiresIn": Self.duration(settings.verificationTTL),
            ], in: db)
    }

    /// To the replaced address: what changed, and a link that takes it back.
    func emailChanged(_ user: UserRecord, from oldEmail: String, to newEmail: String, in db: Database) throws {
        let (_, link) = try challenge(
            .undo, for: user, email: oldEmail, code: false, link: true, ttl: settings.undoTTL, in: db)
        try send(
            .emailChanged, to: oldEmail,
            [
                "link": settings.links.url(settings.links.undoEmailChange, token: link!), "email": oldEmail,
                "newEmail": newEmail, "when": Self.moment(clock.now()), "expiresIn": Self.duration(settings.undoTTL),
            ],
            in: db)
    }

    /// A code that signs in.
    func signInCode(for user: UserRecord, in db: Database) throws {
        guard let email = user.email else { return }
        let (code, _) = try challenge(
            .signIn, for: user, email: email, code: true, link: false, ttl: settings.codeTTL, in: db)
        try send(.signInCode, to: email, ["code": code!, "expiresIn": Self.duration(settings.codeTTL)], in: db)
    }

    // MARK: - Parts

    /// Replaces the user's challenge of `purpose` (an undo is added beside any other) and
    /// returns the code and link token it was made with.
    private func challenge(
        _ purpose: EmailPurpose, for user: UserRecord, email: String, code wantsCode: Bool, link wantsLink: Bool,
        ttl: TimeInterval, stamp: String? = nil, in db: Database
    ) throws -> (code: String?, link: String?) {
        if purpose != .undo { try EmailChallengeRecord.all().of(user.id, purpose).deleteAll(db) }
        let now = clock.now()
        let id = entropy.uuid().uuidString.lowercased()
        let code = wantsCode ? codes.newCode() : nil
        let link = wantsLink ? codes.newLinkToken() : nil
        try EmailChallengeRecord(
            id: id, userId: user.id, purpose: purpose, email: email,
            codeHash: code.map { codes.codeDigest($0, challengeID: id) }, linkHash: link?.digest, passwordStamp: stamp,
            createdAt: now, expiresAt: now.addingTimeInterval(ttl)
        ).insert(db)
        return (code, link?.token)
    }

    /// Renders `kind` for `address` and schedules it.
    private func send(_ kind: MailTemplates.Kind, to address: String, _ values: [String: Any], in db: Database) throws {
        var values = values
        values["appName"] = settings.appName
        values["email"] = values["email"] ?? address
        values["supportEmail"] = settings.supportEmail
        let words = templates.render(kind, values)
        let message = MailMessage(
            id: entropy.uuid().uuidString.lowercased(), from: settings.from, to: address, subject: words.subject,
            text: words.text, html: words.html, date: clock.now())
        try jobs.schedule(Self.sendKind, key: message.id, payload: message, in: db)
    }

    /// `24 hours`, `1 hour`, `10 minutes`, `7 days`.
    static func duration(_ interval: TimeInterval) -> String {
        let minutes = Int(interval / 60)
        let (value, unit) =
            minutes % 1440 == 0 && minutes >= 2880
            ? (minutes / 1440, "day")
            : minutes % 60 == 0 ? (minutes / 60, "hour") : (minutes, "minute")
        return "\(value) \(unit)\(value == 1 ? "" : "s")"
    }

    /// `2026-12-04 17:31 UTC`.
    static func moment(_ date: Date) -> String {
        let text = CivilDays.text(milliseconds: Int(date.timeIntervalSince1970 * 1000), separator: " ") ?? "\(date)"
        return "\(text.prefix(16)) UTC"
    }
}
