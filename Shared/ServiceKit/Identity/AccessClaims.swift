import Foundation
import JWTKit

/// The claims of a Pinhole access token. Auth signs them; the gateway and every service
/// verify them with ``TokenVerifier``.
public struct AccessClaims: JWTPayload, Equatable {
    /// Issuer (`token.issuer`).
    public var iss: IssuerClaim
    /// Audience (`token.audience`).
    public var aud: AudienceClaim
    /// The user id.
    public var sub: SubjectClaim
    /// Expiry.
    public var exp: ExpirationClaim
    /// Not valid before.
    public var nbf: NotBeforeClaim
    /// Issued at.
    public var iat: IssuedAtClaim
    /// Unique token id.
    public var jti: IDClaim
    /// The session the token belongs to.
    public var sid: String
    /// Space-separated scopes (`user`; `guest` is read-only).
    public var scope: String

    public init(
        issuer: String, audience: String, subject: String, issuedAt: Date, expiresAt: Date,
        tokenID: String, sessionID: String, scope: String
    ) {
        self.iss = IssuerClaim(value: issuer)
        self.aud = AudienceClaim(value: audience)
        self.sub = SubjectClaim(value: subject)
        self.iat = IssuedAtClaim(value: issuedAt)
        self.nbf = NotBeforeClaim(value: issuedAt)
        self.exp = ExpirationClaim(value: expiresAt)
        self.jti = IDClaim(value: tokenID)
        self.sid = sessionID
        self.scope = scope
    }

    /// Time and audience checks need the configured values and the injected clock, so they
    /// happen in ``TokenVerifier`` after the signature is verified.
    public func verify(using algorithm: some JWTAlgorithm) throws {}
}

/// Who a request acts for, once its access token is verified.
public struct AuthenticatedUser: Sendable, Equatable {
    /// The user id (`sub`).
    public let userID: String
    /// The session id (`sid`).
    public let sessionID: String
    /// The scopes the token grants.
    public let scopes: Set<String>
    /// When the token expires.
    public let expiresAt: Date

    public init(userID: String, sessionID: String, scopes: Set<String>, expiresAt: Date) {
        self.userID = userID
        self.sessionID = sessionID
        self.scopes = scopes
        self.expiresAt = expiresAt
    }
}
