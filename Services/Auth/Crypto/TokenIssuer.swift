import Crypto
import Foundation
import ServiceKit

/// Mints access tokens and opaque refresh tokens.
struct TokenIssuer: Sendable {
    let keyRing: SigningKeyRing
    let issuer: String
    let audience: String
    let accessTokenTTL: TimeInterval
    let refreshTokenTTL: TimeInterval
    let clock: any WallClock
    let entropy: any Entropy

    /// A signed access token for a user's session.
    func accessToken(userID: String, sessionID: String, issuedAt: Date) async throws -> String {
        // NumericDate in whole seconds: some client JWT libraries reject fractions.
        let issuedAt = Date(timeIntervalSince1970: issuedAt.timeIntervalSince1970.rounded(.down))
        let claims = AccessClaims(
            issuer: issuer, audience: audience, subject: userID, issuedAt: issuedAt,
            expiresAt: issuedAt.addingTimeInterval(accessTokenTTL), tokenID: entropy.token(bytes: 16),
            sessionID: sessionID, scope: "user")
        return try await keyRing.sign(claims)
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
