import Contracts
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
    /// Server-side only (from auth's session state, never from the token): the session was
    /// opened under duress and must be treated as limited. Always false at the gateway.
    public var limited: Bool
    /// The roles the user holds now (from auth's session state). Empty at the gateway.
    public var roles: Set<RoleGrant>
    /// An active subscription (from auth's session state). False at the gateway.
    public var premium: Bool
    /// A verified phone number (from auth's session state). False at the gateway.
    public var phoneVerified: Bool
    /// A proven email address (from auth's session state). False at the gateway.
    public var emailVerified = false
    /// The tenant of a PIN customer's session (from auth's session state).
    public var tenantID: String?
    /// The customer reference of a PIN customer's session (from auth's session state).
    public var customerRef: String?
    /// When the session last made a valid App Attest assertion (from auth's session state).
    public var attestedAt: Date?
    /// Until when a moderator suspended the user, while that is still ahead (from auth's
    /// session state): writes are refused with `ACCOUNT_SUSPENDED`. Nil at the gateway.
    public var suspendedUntil: Date?

    public init(
        userID: String, sessionID: String, scopes: Set<String>, expiresAt: Date, limited: Bool = false,
        roles: Set<RoleGrant> = [], premium: Bool = false, phoneVerified: Bool = false, tenantID: String? = nil,
        customerRef: String? = nil
    ) {
        self.tenantID = tenantID
        self.customerRef = customerRef
        self.userID = userID
        self.sessionID = sessionID
        self.scopes = scopes
        self.expiresAt = expiresAt
        self.limited = limited
        self.roles = roles
        self.premium = premium
        self.phoneVerified = phoneVerified
    }

    /// The scope of guest tokens: anonymous, read-only browsing.
    public static let guestScope = "guest"

    /// Whether the token is a guest's (read-only, no account, no session).
    public var isGuest: Bool { scopes.contains(Self.guestScope) }

    /// Whether the user holds `role` (for tenant roles: in `tenantID`). Admins hold every
    /// deployment-wide role.
    public func has(_ role: Role, tenantID: String? = nil) -> Bool {
        if role == .user { return !isGuest }
        if !role.isTenantScoped, roles.contains(RoleGrant(role: .admin)) { return true }
        return roles.contains(RoleGrant(role: role, tenantId: role.isTenantScoped ? tenantID : nil))
    }

    /// Whether the user acts for `tenantID`'s staff: its responders and admins, or a deployment
    /// admin (who sees its duress alerts and the evidence collected under them).
    public func isStaff(of tenantID: String) -> Bool {
        has(.admin) || has(.tenantResponder, tenantID: tenantID) || has(.tenantAdmin, tenantID: tenantID)
    }
}

extension AuthenticatedUser {
    /// 403 `EMAIL_VERIFICATION_REQUIRED` when the deployment asks for a proven address
    /// (`accounts.requireVerifiedEmail`, passed as `required`) and the user has none: posting,
    /// friend requests and messages call this.
    public func requireVerifiedEmail(if required: Bool) throws {
        guard required, !emailVerified else { return }
        throw ServiceError(
            .emailVerificationRequired,
            "Confirm your email address first: the code is in the mail; POST /v1/me/email/verification sends another.")
    }
}
