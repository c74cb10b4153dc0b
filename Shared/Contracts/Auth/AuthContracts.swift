import Foundation

/// `POST /v1/auth/register`.
public struct RegisterRequest: Codable, Sendable {
    /// The sign-in address; compared case-insensitively.
    public var email: String
    /// 8 to 1024 characters; any Unicode; never truncated.
    public var password: String
    /// Shown to others; defaults to the part of the email before `@`.
    public var displayName: String?
    /// Optional: the `@username` others find you by (see `GET /v1/auth/check-username/{username}`).
    public var username: String?

    public init(email: String, password: String, displayName: String? = nil, username: String? = nil) {
        self.email = email
        self.password = password
        self.displayName = displayName
        self.username = username
    }
}

/// `GET /v1/auth/check-username/{username}`: whether a username can be had now.
public struct UsernameAvailability: Codable, Sendable, Equatable {
    public var username: String
    public var available: Bool
    /// Why not: `invalid`, `reserved` or `taken` (also a name recently given up).
    public var reason: String?

    public init(username: String, available: Bool, reason: String? = nil) {
        self.username = username
        self.available = available
        self.reason = reason
    }
}

/// `GET /v1/users/{id}`, `GET /v1/users/by-username/{username}`: what anyone signed in sees of
/// a user (not across a block).
public struct PublicProfile: Codable, Sendable, Equatable {
    public var id: String
    public var username: String?
    public var displayName: String
    /// A bio: up to 160 characters, absent until written.
    public var bio: String?
    /// The square 300×300 thumbnail of the user's avatar photo (`PUT /v1/me/avatar`), absent
    /// until one is set.
    public var avatarURL: String?
    /// The avatar as a media view (sizes, placeholder, URLs an image loader fetches without a
    /// token), as lists show it.
    public var avatar: MediaView?
    /// Followers, following and posts, as feed last published them.
    public var counts: ProfileCounts
    /// The apps' numbers, each once its service has published one.
    public var stats: ProfileStats
    public var createdAt: Date

    public init(
        id: String, username: String?, displayName: String, bio: String? = nil, avatarURL: String? = nil,
        counts: ProfileCounts = ProfileCounts(), stats: ProfileStats = ProfileStats(), createdAt: Date
    ) {
        self.id = id
        self.username = username
        self.displayName = displayName
        self.bio = bio
        self.avatarURL = avatarURL
        self.counts = counts
        self.stats = stats
        self.createdAt = createdAt
    }
}

/// The per-app numbers on a public profile: streaks and challenge
/// standing, each absent until the user has one.
public struct ProfileStats: Codable, Sendable, Equatable {
    public var streak: StreakProfileStats?
    public var challenges: ChallengeStats?

    public init(streak: StreakProfileStats? = nil, challenges: ChallengeStats? = nil) {
        self.streak = streak
        self.challenges = challenges
    }
}

/// `PUT /v1/me/avatar`: one of the user's own photos (uploaded with purpose `avatar`, or any
/// of their photos); everyone signed in may then see its square thumbnail.
public struct AvatarUpdate: Codable, Sendable {
    public var mediaId: String

    public init(mediaId: String) { self.mediaId = mediaId }
}

extension UserSummary {
    /// Where a user's avatar thumbnail is read (media serves it; it is public once set).
    public static func avatarURL(mediaId: String?) -> String? { mediaId.map { "/v1/media/\($0)/thumbnail" } }
}

/// `PATCH /v1/me`: the fields to change.
public struct ProfileUpdate: Codable, Sendable {
    public var displayName: String?
    /// Another name at most once every 30 days.
    public var username: String?
    /// Up to 160 characters; an empty one removes it.
    public var bio: String?

    public init(displayName: String? = nil, username: String? = nil, bio: String? = nil) {
        self.displayName = displayName
        self.username = username
        self.bio = bio
    }
}

/// The answer to every well-formed registration, whether or not the address was free:
/// the answer must not tell anyone which addresses have accounts.
public struct RegisterResponse: Codable, Sendable, Equatable {
    /// Always `accepted`.
    public var status: String
    /// What to do next: sign in with the same email and password.
    public var message: String

    public init(status: String, message: String) {
        self.status = status
        self.message = message
    }
}

/// The device a session was created on, as the client describes itself.
public struct DeviceInfo: Codable, Sendable, Equatable {
    /// `ios`, `android`, `web` or another short name.
    public var platform: String
    /// App or OS version.
    public var version: String?
    /// A stable id of this app installation (at most 64 characters), when the client has one;
    /// failed PIN attempts are counted per device with it.
    public var id: String?

    public init(platform: String, version: String? = nil, id: String? = nil) {
        self.platform = platform
        self.version = version
        self.id = id
    }
}

/// `POST /v1/auth/login`.
public struct LoginRequest: Codable, Sendable {
    public var email: String
    public var password: String
    public var device: DeviceInfo?

    public init(email: String, password: String, device: DeviceInfo? = nil) {
        self.email = email
        self.password = password
        self.device = device
    }
}

/// `POST /v1/auth/refresh`.
public struct RefreshRequest: Codable, Sendable {
    /// The refresh token from the last login or refresh; it is single-use.
    public var refreshToken: String

    public init(refreshToken: String) {
        self.refreshToken = refreshToken
    }
}

/// A fresh access token and the refresh token that replaces the one just used.
public struct TokenResponse: Codable, Sendable, Equatable {
    /// ES256-signed JWT, valid for `expiresIn` seconds.
    public var accessToken: String
    /// Always `Bearer`.
    public var tokenType: String
    /// Access token lifetime in seconds.
    public var expiresIn: Int
    /// Opaque, single-use; rotate it with `POST /v1/auth/refresh`.
    public var refreshToken: String
    /// Refresh token lifetime in seconds.
    public var refreshExpiresIn: Int
    /// The session these tokens belong to.
    public var sessionId: String

    enum CodingKeys: String, CodingKey {
        case accessToken, tokenType, expiresIn, refreshToken, refreshExpiresIn, sessionId
    }

    public init(
        accessToken: String, tokenType: String, expiresIn: Int, refreshToken: String,
        refreshExpiresIn: Int, sessionId: String
    ) {
        self.accessToken = accessToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.refreshToken = refreshToken
        self.refreshExpiresIn = refreshExpiresIn
        self.sessionId = sessionId
    }
}

/// `GET /v1/me`.
public struct UserProfile: Codable, Sendable, Equatable {
    public var id: String
    /// Absent for accounts without one (PIN customers).
    public var email: String?
    public var displayName: String
    /// Absent until the user picks one.
    public var username: String?
    /// Up to 160 characters, absent until written.
    public var bio: String?
    /// The avatar's square thumbnail, absent until one is set.
    public var avatarURL: String?
    public var createdAt: Date
    /// Roles beyond `user`.
    public var roles: [RoleGrant]
    /// Whether a subscription gives the user premium now (RevenueCat): the settings screen's plan.
    public var premium: Bool
    /// As the public profile shows them: followers, following and posts, and the numbers auth
    /// holds (`stats.challenges`; streak's, which move with time, are on the public profile).
    public var counts: ProfileCounts?
    public var stats: ProfileStats?
    /// The avatar as a media view, as lists show it.
    public var avatar: MediaView?
    /// Whether the user proved `email` is theirs (a mailed code or link, or Apple's word).
    public var emailVerified: Bool = false

    public init(
        id: String, email: String?, displayName: String, username: String? = nil, bio: String? = nil,
        avatarURL: String? = nil, createdAt: Date, roles: [RoleGrant] = [], premium: Bool = false
    ) {
        self.premium = premium
        self.username = username
        self.bio = bio
        self.avatarURL = avatarURL
        self.id = id
        self.email = email
        self.displayName = displayName
        self.createdAt = createdAt
        self.roles = roles
    }
}

/// One entry of `GET /v1/auth/sessions`.
public struct SessionSummary: Codable, Sendable, Equatable {
    public var id: String
    public var createdAt: Date
    public var lastUsedAt: Date
    /// The client address the gateway saw when the session was created.
    public var ipAddress: String?
    public var userAgent: String?
    public var device: DeviceInfo?
    /// Whether this is the session of the token making the request.
    public var current: Bool

    enum CodingKeys: String, CodingKey {
        case id, createdAt, lastUsedAt, ipAddress, userAgent, device, current
    }

    public init(
        id: String, createdAt: Date, lastUsedAt: Date, ipAddress: String?, userAgent: String?,
        device: DeviceInfo?, current: Bool
    ) {
        self.id = id
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.ipAddress = ipAddress
        self.userAgent = userAgent
        self.device = device
        self.current = current
    }
}

/// A JSON Web Key Set (RFC 7517) of auth's public signing keys.
public struct JWKSDocument: Codable, Sendable, Equatable {
    public var keys: [PublicJWK]

    public init(keys: [PublicJWK]) {
        self.keys = keys
    }
}

/// One public P-256 key (RFC 7518 §6.2, `EC`), for ES256 signatures.
public struct PublicJWK: Codable, Sendable, Equatable {
    /// Always `EC`.
    public var kty: String
    /// Always `P-256`.
    public var crv: String
    /// The public point's x coordinate, base64url.
    public var x: String
    /// The public point's y coordinate, base64url.
    public var y: String
    /// Key id (RFC 7638 thumbprint), matched against the token header's `kid`.
    public var kid: String
    /// Always `ES256`.
    public var alg: String
    /// Always `sig`.
    public var use: String

    public init(x: String, y: String, kid: String) {
        self.kty = "EC"
        self.crv = "P-256"
        self.x = x
        self.y = y
        self.kid = kid
        self.alg = "ES256"
        self.use = "sig"
    }
}

/// `GET /internal/users?q=` on auth: people found by name or whole email address.
public struct UserSearch: Codable, Sendable, Equatable {
    public var users: [UserSummary]

    public init(users: [UserSummary]) { self.users = users }
}

/// `GET /internal/users/{id}` on auth: who a user id is, for services that must check that a
/// user exists (a friend request, a block) or show a name.

public struct UserSummary: Codable, Sendable, Equatable {
    public var id: String
    public var displayName: String
    /// When the user picked one.
    public var username: String?
    /// The avatar's square thumbnail, when the user set one.
    public var avatarURL: String?

    public init(id: String, displayName: String, username: String? = nil, avatarURL: String? = nil) {
        self.id = id
        self.displayName = displayName
        self.username = username
        self.avatarURL = avatarURL
    }
}

/// `POST /v1/auth/apple`: Sign in with Apple, as the app received it from
/// `ASAuthorizationAppleIDCredential`.
public struct AppleSignInRequest: Codable, Sendable {
    /// The identity token (a JWT signed by Apple).
    public var identityToken: String
    /// The one-time authorization code; exchanged at Apple so the account can be revoked later.
    public var authorizationCode: String?
    /// The raw nonce the app generated; the token carries its SHA-256 (hex).
    public var nonce: String
    /// The name Apple gives the app on the first sign-in only.
    public var displayName: String?
    public var device: DeviceInfo?

    public init(
        identityToken: String, authorizationCode: String? = nil, nonce: String, displayName: String? = nil,
        device: DeviceInfo? = nil
    ) {
        self.identityToken = identityToken
        self.authorizationCode = authorizationCode
        self.nonce = nonce
        self.displayName = displayName
        self.device = device
    }
}
