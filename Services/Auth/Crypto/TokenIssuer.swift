import Contracts
import Crypto
import Foundation
import ServiceHTTP

/// Mints access tokens and opaque refresh tokens.
struct TokenIssuer: Sendable {
    let keyRing: SigningKeyRing
    let issuer: String
    let audience: String
    let accessTokenTTL: TimeInterval
    let refreshTokenTTL: TimeInterval
    let clock: any WallClock
    let entropy: any Entropy

    /// A signed access token for a user's session. Every user token has scope `user`, whatever
    /// the session (a duress session's token looks exactly like any other).
    func accessToken(userID: String, sessionID: String, issuedAt: Date) async throws -> String {
        try await sign(subject: userID, sessionID: sessionID, scope: "user", issuedAt: issuedAt)
    }

    /// A read-only token for anonymous browsing: a fresh random subject, no session.
    func guestToken(issuedAt: Date) async throws -> String {
        try await sign(
            subject: entropy.uuid().uuidString.lowercased(), sessionID: "guest", scope: AuthenticatedUser.guestScope,
            issuedAt: issuedAt)
    }

    private func sign(subject: String, sessionID: String, scope: String, issuedAt: Date) async throws -> String {
        // NumericDate in whole seconds: some client JWT libraries reject fractions.
        let issuedAt = Date(timeIntervalSince1970: issuedAt.timeIntervalSince1970.rounded(.down))
        let claims = AccessClaims(
            issuer: issuer, audience: audience, subject: subject, issuedAt: issuedAt,
            expiresAt: issuedAt.addingTimeInterval(accessTokenTTL), tokenID: entropy.token(bytes: 16),
            sessionID: sessionID, scope: scope)
        return try await keyRing.sign(claims)
    }

    /// The answer to a sign-in or refresh: a fresh access token and `refreshToken`.
    func tokenResponse(userID: String, sessionID: String, refreshToken: String, now: Date) async throws -> TokenResponse
    {
        TokenResponse(
            accessToken: try await accessToken(userID: userID, sessionID: sessionID, issuedAt: now),
            tokenType: "Bearer",
            expiresIn: Int(accessTokenTTL), refreshToken: refreshToken, refreshExpiresIn: Int(refreshTokenTTL),
            sessionId: sessionID)
    }

    /// A new refresh token: 256 random bits, given to the client once; only its hash is kept.
    func refreshToken() -> (token: String, hash: String) {
        let token = entropy.token(bytes: 32)
        return (token, Self.hash(token))
    }

    /// The stored form of a refresh token. The token is 256 random bits, so a fast hash is
    /// enough: nothing can be guessed from it.
    static func hash(_ token: String) -> String {
        Hex.encode(SHA256.hash(data: Data(token.utf8)))
    }
}

/// Seals a child refresh token under a key derived from its parent token, so that the stored
/// row alone (or a database leak) reveals nothing, yet a client that presents the parent again
/// within the grace window can be given the very same child.
enum RefreshTokenSeal {
    static func key(for parent: String) -> SymmetricKey {
        HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(parent.utf8)), info: Data("pinhole refresh child".utf8),
            outputByteCount: 32)
    }

    static func seal(_ child: String, parent: String) throws -> Data {
        guard let sealed = try AES.GCM.seal(Data(child.utf8), using: key(for: parent)).combined else {
            throw CryptoKitError.incorrectParameterSize
        }
        return sealed
    }

    static func open(_ sealed: Data, parent: String) -> String? {
        guard let box = try? AES.GCM.SealedBox(combined: sealed),
            let data = try? AES.GCM.open(box, using: key(for: parent))
        else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}
