import Foundation

/// What a user may do beyond their own objects. Tenant roles hold for one tenant only.
public enum Role: String, Codable, Sendable, CaseIterable, Hashable {
    /// Every signed-in person; implied, never stored.
    case user
    /// Works the report queue.
    case moderator
    /// Runs the deployment: tenants, roles, everything a moderator does.
    case admin
    /// Enrols and resets a tenant's customers and clears its incidents.
    case tenantAdmin = "tenant_admin"
    /// Sees and clears a tenant's duress incidents.
    case tenantResponder = "tenant_responder"

    /// Whether the role is held for one tenant rather than the whole deployment.
    public var isTenantScoped: Bool { self == .tenantAdmin || self == .tenantResponder }
}

/// One role held by a user; `tenantId` is set exactly for tenant-scoped roles.
public struct RoleGrant: Codable, Sendable, Hashable {
    public var role: Role
    public var tenantId: String?

    public init(role: Role, tenantId: String? = nil) {
        self.role = role
        self.tenantId = tenantId
    }
}

/// `POST /v1/admin/roles` and `POST /v1/admin/roles/revoke` (admins), and
/// `POST /internal/admin/roles` (the `pinhole` CLI, for the first admin).
public struct RoleChange: Codable, Sendable, Equatable {
    /// Who: a user id, or (CLI) an email address.
    public var userId: String?
    public var email: String?
    public var role: Role
    public var tenantId: String?

    public init(userId: String? = nil, email: String? = nil, role: Role, tenantId: String? = nil) {
        self.userId = userId
        self.email = email
        self.role = role
        self.tenantId = tenantId
    }
}

/// A user's roles after a change.
public struct UserRoles: Codable, Sendable, Equatable {
    public var userId: String
    public var roles: [RoleGrant]

    public init(userId: String, roles: [RoleGrant]) {
        self.userId = userId
        self.roles = roles
    }
}

/// `GET /internal/sessions/{id}` on auth: what the token verifier of every service learns
/// about a live session beyond the token. It never reaches a client: a duress session's
/// `limited` flag is visible only here.
public struct SessionState: Codable, Sendable, Equatable {
    public var sessionId: String
    public var userId: String
    /// A session opened under duress (or after it, until the incident is cleared).
    public var limited: Bool
    public var roles: [RoleGrant]
    /// An active subscription (RevenueCat), including one cancelled but not yet expired.
    public var premium: Bool
    /// The user has verified a phone number.
    public var phoneVerified: Bool
    /// The user has proven their email address.
    public var emailVerified: Bool
    /// The tenant of a PIN customer's session.
    public var tenantId: String?
    /// The customer reference of a PIN customer's session.
    public var customerRef: String?
    /// When the session last made a valid App Attest assertion.
    public var attestedAt: Date?
    /// Until when a moderator suspended the user (absent when they are not suspended): until
    /// then the user may read but not change anything (`ACCOUNT_SUSPENDED`).
    public var suspendedUntil: Date?

    enum CodingKeys: String, CodingKey {
        case sessionId, userId, limited, roles, premium, phoneVerified, emailVerified, tenantId, customerRef,
            attestedAt, suspendedUntil
    }

    public init(
        sessionId: String, userId: String, limited: Bool, roles: [RoleGrant], premium: Bool = false,
        phoneVerified: Bool = false, emailVerified: Bool = false, tenantId: String? = nil, customerRef: String? = nil,
        attestedAt: Date? = nil, suspendedUntil: Date? = nil
    ) {
        self.emailVerified = emailVerified
        self.suspendedUntil = suspendedUntil
        self.attestedAt = attestedAt
        self.tenantId = tenantId
        self.customerRef = customerRef
        self.sessionId = sessionId
        self.userId = userId
        self.limited = limited
        self.roles = roles
        self.premium = premium
        self.phoneVerified = phoneVerified
    }
}

/// `POST /internal/sessions/{id}/end` on auth (moderation's console signing out).
public struct SessionEnd: Codable, Sendable {
    public var userId: String

    public init(userId: String) { self.userId = userId }
}

/// `POST /v1/auth/guest`: a read-only access token for browsing without an account.
public struct GuestTokenResponse: Codable, Sendable, Equatable {
    /// ES256-signed JWT with scope `guest`; no refresh token: ask for a new one when it expires.
    public var accessToken: String
    /// Always `Bearer`.
    public var tokenType: String
    public var expiresIn: Int

    public init(accessToken: String, tokenType: String, expiresIn: Int) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
    }
}

/// Why sessions ended (``SessionEnded``).
public enum SessionEndReason: String, Codable, Sendable {
    /// `POST /v1/auth/logout`.
    case logout
    /// `POST /v1/auth/logout-all`.
    case logoutAll = "logout_all"
    /// `DELETE /v1/auth/sessions/{id}`: ended from another device.
    case revoked
    /// A rotated refresh token was presented again: the token family is treated as stolen.
    case refreshTokenReused = "refresh_token_reused"
    /// A moderator banned the account.
    case banned
    /// The password was reset from a mailed link, or changed without keeping other sessions.
    case passwordChanged = "password_changed"
    /// The old address took a change of address back.
    case emailRestored = "email_restored"
}

/// `session.ended` (auth → alerts): sessions of one user ended while the account stays; what
/// hangs on a session (its push devices, its live streams) goes with it. Account deletion
/// sends `user.deleted` instead.
public struct SessionEnded: DomainEvent, Equatable {
    public static let eventType: EventType = "session.ended"

    public var userId: String
    public var sessionIds: [String]
    public var reason: SessionEndReason

    public init(userId: String, sessionIds: [String], reason: SessionEndReason) {
        self.userId = userId
        self.sessionIds = sessionIds
        self.reason = reason
    }
}
