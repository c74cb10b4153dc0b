import Foundation

/// `POST /v1/auth/password/forgot` and `POST /v1/auth/email/code`: the address a mail is
/// asked for.
public struct EmailAddressRequest: Codable, Sendable {
    public var email: String

    public init(email: String) { self.email = email }
}

/// The answer to a mail asked for by address: always the same, whether or not the address
/// has an account.
public struct MailRequestAccepted: Codable, Sendable, Equatable {
    /// Always `accepted`.
    public var status: String
    public var message: String

    public init(status: String = "accepted", message: String) {
        self.status = status
        self.message = message
    }
}

/// `POST /v1/me/email/verification` (202) and `POST /v1/me/email` (202): where the code went
/// and until when it works.
public struct EmailCodeSent: Codable, Sendable, Equatable {
    public var email: String
    public var expiresAt: Date

    public init(email: String, expiresAt: Date) {
        self.email = email
        self.expiresAt = expiresAt
    }
}

/// `POST /v1/me/email/verification/check` and `POST /v1/me/email/confirm`: the six digits of
/// the mail.
public struct EmailCodeCheck: Codable, Sendable {
    public var code: String

    public init(code: String) { self.code = code }
}

/// The links' routes (`/v1/auth/email/verify`, `/v1/auth/email/confirm`,
/// `/v1/auth/email/undo`) posted as JSON by an app that opened the link itself.
public struct EmailLinkToken: Codable, Sendable {
    public var token: String

    public init(token: String) { self.token = token }
}

/// The account's address once proven.
public struct VerifiedEmail: Codable, Sendable, Equatable {
    public var email: String
    public var verifiedAt: Date

    public init(email: String, verifiedAt: Date) {
        self.email = email
        self.verifiedAt = verifiedAt
    }
}

/// `POST /v1/auth/password/reset`: the mailed link's token and the new password.
public struct PasswordResetRequest: Codable, Sendable {
    public var token: String
    /// 8 to 1024 characters, as at registration.
    public var password: String

    public init(token: String, password: String) {
        self.token = token
        self.password = password
    }
}

/// `POST /v1/me/password`: a new password, proven by the current one (or, for an account
/// that has none, a fresh Sign in with Apple token).
public struct PasswordChangeRequest: Codable, Sendable {
    public var currentPassword: String?
    public var appleIdentityToken: String?
    /// The raw nonce the Apple token was requested with.
    public var nonce: String?
    public var newPassword: String
    /// Keep the account's other sessions signed in (default: they end; this one stays).
    public var keepOtherSessions: Bool?

    public init(
        currentPassword: String? = nil, appleIdentityToken: String? = nil, nonce: String? = nil,
        newPassword: String, keepOtherSessions: Bool? = nil
    ) {
        self.currentPassword = currentPassword
        self.appleIdentityToken = appleIdentityToken
        self.nonce = nonce
        self.newPassword = newPassword
        self.keepOtherSessions = keepOtherSessions
    }
}

/// `POST /v1/me/email`: a new address, proven by the password (or a fresh Sign in with Apple
/// token); it takes effect once a code or link mailed to it is used.
public struct EmailChangeRequest: Codable, Sendable {
    public var email: String
    public var password: String?
    public var appleIdentityToken: String?
    public var nonce: String?

    public init(email: String, password: String? = nil, appleIdentityToken: String? = nil, nonce: String? = nil) {
        self.email = email
        self.password = password
        self.appleIdentityToken = appleIdentityToken
        self.nonce = nonce
    }
}

/// `POST /v1/auth/email/code/verify`: a mailed sign-in code.
public struct EmailSignInRequest: Codable, Sendable {
    public var email: String
    public var code: String
    public var device: DeviceInfo?

    public init(email: String, code: String, device: DeviceInfo? = nil) {
        self.email = email
        self.code = code
        self.device = device
    }
}
