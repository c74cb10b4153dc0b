import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// `POST /v1/auth/apple`: Sign in with Apple. The identity token is verified against Apple's
/// keys (with the nonce), the authorization code is exchanged so the account can be revoked at
/// deletion, and the user is found by Apple's `sub` or created on the first sign-in. Without
/// `apple.*` settings the route answers 404: the method and path stay known (405 stays true).
struct AppleController: Sendable {
    let users: UserStore
    let apple: AppleSignIn?
    let issuer: TokenIssuer
    let clock: any WallClock
    let entropy: any Entropy

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.post("/v1/auth/apple", use: signIn)
    }

    @Sendable func signIn(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        guard let apple else { throw ServiceError(.notFound, "Sign in with Apple is not set up on this server.") }
        let body = try await request.decodeJSON(as: AppleSignInRequest.self, context: context)
        try Credentials.validate(body.device)
        guard (1...256).contains(body.nonce.utf8.count) else {
            throw ServiceError.validation("`nonce` must be 1 to 256 characters.")
        }
        let identity = try await apple.verify(body.identityToken, rawNonce: body.nonce)
        var appleRefreshToken: String?
        if let code = body.authorizationCode {
            guard (1...1024).contains(code.utf8.count) else {
                throw ServiceError.validation("`authorizationCode` must be 1 to 1024 characters.")
            }
            appleRefreshToken = try await apple.exchange(code: code, clientID: identity.clientID)
        }
        let now = clock.now()
        let userID = entropy.uuid().uuidString.lowercased()
        let displayName =
            try body.displayName.flatMap(Credentials.displayName)
            ?? identity.email.map { String($0.split(separator: "@")[0].prefix(50)) } ?? "Apple user"
        let (token, hash) = issuer.refreshToken()
        let session = try await SessionRecord.opened(
            id: entropy.uuid().uuidString.lowercased(), userId: userID, at: now, request: request, context: context,
            device: body.device)
        let signedIn = try await users.signInWithApple(
            identity, appleRefreshToken: appleRefreshToken,
            newUser: UserRecord(
                id: userID, email: identity.email, passwordHash: nil, displayName: displayName, createdAt: now,
                updatedAt: now, emailVerifiedAt: identity.email == nil ? nil : now),
            session: session,
            refreshToken: RefreshTokenRecord(
                tokenHash: hash, sessionId: session.id, issuedAt: now,
                expiresAt: now.addingTimeInterval(issuer.refreshTokenTTL)),
            now: now)
        context.logger.info(
            "signed in with Apple", metadata: ["user_id": "\(signedIn)", "session_id": "\(session.id)"])
        return try Response.json(
            await issuer.tokenResponse(userID: signedIn, sessionID: session.id, refreshToken: token, now: now))
    }
}
