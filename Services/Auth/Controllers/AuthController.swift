import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// Register, login, refresh, logout, guest tokens.
struct AuthController: Sendable {
    let users: UserStore
    let sessions: SessionStore
    /// Registration's mail: a verification code and link for a new account, a note to the
    /// owner of a taken address (``AccountMail/answer(_:in:)``).
    let mail: AccountMail
    let hasher: PasswordHasher
    let issuer: TokenIssuer
    let clock: any WallClock
    let entropy: any Entropy
    let refreshGrace: TimeInterval
    let guestTokens: Bool

    static let registerAccepted = RegisterResponse(
        status: "accepted",
        message: "If this address can be registered, the account is ready: sign in with the same email and password.")

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.idempotent(routes.open).post("/v1/auth/register", use: register)
        routes.open.post("/v1/auth/login", use: login)
        routes.open.post("/v1/auth/refresh", use: refresh)
        if guestTokens { routes.open.post("/v1/auth/guest", use: guest) }
        routes.authenticatedWhileSuspended.post("/v1/auth/logout", use: logout)
        routes.authenticatedWhileSuspended.post("/v1/auth/logout-all", use: logoutAll)
    }

    /// `POST /v1/auth/register` → 202 whether or not the address was free: both paths hash
    /// the password and write once, with the same mail request, so neither status, body nor
    /// timing tells them apart. The mail job then sends a new account its verification code
    /// and the owner of a taken address a note.
    @Sendable func register(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: RegisterRequest.self, context: context)
        let email = try Credentials.normalizedEmail(body.email)
        try Credentials.validateNewPassword(body.password)
        let displayName = try Credentials.displayName(body.displayName, email: email)
        let usernameKey = try body.username.map(UsernameRules.requireKey)
        let hash = try await hasher.hash(body.password)
        let now = clock.now()
        let created = try await users.insertUserIfAbsent(
            UserRecord(
                id: entropy.uuid().uuidString.lowercased(), email: email, passwordHash: hash,
                displayName: displayName, createdAt: now, updatedAt: now, username: body.username,
                usernameKey: usernameKey, usernameChangedAt: usernameKey.map { _ in now })
        ) { [mail] db in
            // Past the address's hourly limit the mail is skipped (the account is still made):
            // `POST /v1/me/email/verification` sends another.
            _ = try mail.request(AccountMail.Request(purpose: .verify, address: email), in: db)
        }
        context.logger.info("registration accepted", metadata: ["new_account": "\(created)"])
        return try Response.json(Self.registerAccepted, status: .accepted)
    }

    /// `POST /v1/auth/login` → a token pair, or 401 `INVALID_CREDENTIALS` whether the address
    /// is unknown or the password wrong (same work either way).
    @Sendable func login(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: LoginRequest.self, context: context)
        let email = try Credentials.normalizedEmail(body.email)
        try Credentials.validatePresentedPassword(body.password)
        try Credentials.validate(body.device)
        let user = try await Self.verifiedUser(email: email, password: body.password, users: users, hasher: hasher)
        let now = clock.now()
        if let passwordHash = user.passwordHash, hasher.needsRehash(passwordHash) {
            try await users.updatePasswordHash(userID: user.id, hash: hasher.hash(body.password), at: now)
        }
        return try Response.json(
            await Self.openSession(
                for: user.id, device: body.device, request: request, context: context, sessions: sessions,
                issuer: issuer, entropy: entropy, now: now))
    }

    /// A new session of `userID` with its first refresh token, and the token pair for it (a
    /// banned account gets `ACCOUNT_BANNED`).
    static func openSession(
        for userID: String, device: DeviceInfo?, request: Request, context: ServiceRequestContext,
        sessions: SessionStore, issuer: TokenIssuer, entropy: any Entropy, now: Date
    ) async throws -> TokenResponse {
        let (token, hash) = issuer.refreshToken()
        let session = try await SessionRecord.opened(
            id: entropy.uuid().uuidString.lowercased(), userId: userID, at: now, request: request, context: context,
            device: device)
        try await sessions.createSession(
            session,
            refreshToken: RefreshTokenRecord(
                tokenHash: hash, sessionId: session.id, issuedAt: now,
                expiresAt: now.addingTimeInterval(issuer.refreshTokenTTL)))
        context.logger.info("signed in", metadata: ["user_id": "\(userID)", "session_id": "\(session.id)"])
        return try await issuer.tokenResponse(userID: userID, sessionID: session.id, refreshToken: token, now: now)
    }

    /// The account `email` names when `password` is its password, else 401
    /// `INVALID_CREDENTIALS` whether the address is unknown or the password wrong (same work
    /// either way).
    static func verifiedUser(
        email: String, password: String, users: UserStore, hasher: PasswordHasher
    ) async throws -> UserRecord {
        guard let user = try await users.user(email: email), let passwordHash = user.passwordHash else {
            _ = await hasher.verifyUnknown(password)
            throw invalidCredentials
        }
        guard await hasher.verify(password, against: passwordHash) else { throw invalidCredentials }
        return user
    }

    /// `POST /v1/auth/refresh` → a new pair; the presented refresh token is spent.
    ///
    /// Presenting a spent token again within the grace window answers the same new refresh
    /// token (a client that lost the answer stays signed in; concurrent refreshes all get one
    /// child). Later, it revokes the whole session: the token was probably stolen.
    @Sendable func refresh(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: RefreshRequest.self, context: context)
        guard (1...256).contains(body.refreshToken.utf8.count) else { throw Self.reauthRequired }
        let now = clock.now()
        let (token, hash) = issuer.refreshToken()
        let next = RefreshTokenRecord(
            tokenHash: hash, sessionId: "", issuedAt: now, expiresAt: now.addingTimeInterval(issuer.refreshTokenTTL))
        let result = try await sessions.rotate(
            presented: TokenIssuer.hash(body.refreshToken), next: next,
            sealedNext: RefreshTokenSeal.seal(token, parent: body.refreshToken), grace: refreshGrace, now: now)
        switch result {
        case .rotated(let session):
            return try Response.json(
                await issuer.tokenResponse(userID: session.userId, sessionID: session.id, refreshToken: token, now: now)
            )
        case .replayed(let session, let sealed):
            guard let child = RefreshTokenSeal.open(sealed, parent: body.refreshToken) else {
                throw Self.reauthRequired
            }
            return try Response.json(
                await issuer.tokenResponse(userID: session.userId, sessionID: session.id, refreshToken: child, now: now)
            )
        case .rejected(let reuse):
            if reuse { context.logger.warning("refresh token reuse: session revoked") }
            throw Self.reauthRequired
        }
    }

    /// `POST /v1/auth/guest` → a read-only access token for browsing without an account.
    @Sendable func guest(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let token = try await issuer.guestToken(issuedAt: clock.now())
        return try Response.json(
            GuestTokenResponse(accessToken: token, tokenType: "Bearer", expiresIn: Int(issuer.accessTokenTTL)))
    }

    /// `POST /v1/auth/logout` → 204; the session and all its refresh tokens end now.
    @Sendable func logout(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        try await sessions.revokeSession(id: user.sessionID, userID: user.userID, reason: .logout, at: clock.now())
        return Response(status: .noContent)
    }

    /// `POST /v1/auth/logout-all` → 204; every session of the user ends now, this one too.
    @Sendable func logoutAll(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let ended = try await sessions.revokeAllSessions(userID: user.userID, at: clock.now())
        context.logger.info("signed out everywhere", metadata: ["sessions": "\(ended)"])
        return Response(status: .noContent)
    }

    static let invalidCredentials = ServiceError(.invalidCredentials, "Email or password is wrong.")
    static let reauthRequired = ServiceError(.reauthRequired, "The refresh token is no longer valid: sign in again.")
}
