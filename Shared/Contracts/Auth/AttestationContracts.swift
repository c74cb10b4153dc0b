import Foundation

/// `POST /v1/me/attestation/challenges`: a one-time challenge for this session. The client
/// hashes its UTF-8 bytes (SHA-256) as the `clientDataHash` of one `attestKey` or
/// `generateAssertion` call, then sends the result with the challenge.
public struct AttestationChallenge: Codable, Sendable, Equatable {
    public var challenge: String
    public var expiresAt: Date

    public init(challenge: String, expiresAt: Date) {
        self.challenge = challenge
        self.expiresAt = expiresAt
    }
}

/// `POST /v1/me/attestation/keys`: registers an App Attest key with its attestation object.
public struct AttestationKeyRegistration: Codable, Sendable, Equatable {
    /// The key identifier `generateKey` returned (base64).
    public var keyId: String
    /// The attestation object `attestKey` returned (base64).
    public var attestation: String
    public var challenge: String

    public init(keyId: String, attestation: String, challenge: String) {
        self.keyId = keyId
        self.attestation = attestation
        self.challenge = challenge
    }
}

/// A registered App Attest key.
public struct AttestedKeySummary: Codable, Sendable, Equatable {
    public var keyId: String
    /// `TEAMID.bundle.id` of the app the key belongs to.
    public var appId: String
    /// `production` or `development`.
    public var environment: String
    public var createdAt: Date
    public var lastAssertedAt: Date?

    public init(keyId: String, appId: String, environment: String, createdAt: Date, lastAssertedAt: Date? = nil) {
        self.keyId = keyId
        self.appId = appId
        self.environment = environment
        self.createdAt = createdAt
        self.lastAssertedAt = lastAssertedAt
    }
}

/// `POST /v1/me/attestation/assertions`: an assertion made with a registered key.
public struct AttestationAssertion: Codable, Sendable, Equatable {
    public var keyId: String
    /// The assertion object `generateAssertion` returned (base64).
    public var assertion: String
    public var challenge: String

    public init(keyId: String, assertion: String, challenge: String) {
        self.keyId = keyId
        self.assertion = assertion
        self.challenge = challenge
    }
}

/// What an accepted assertion did: this session is attested as of `attestedAt`.
public struct SessionAttestation: Codable, Sendable, Equatable {
    public var keyId: String
    public var attestedAt: Date

    public init(keyId: String, attestedAt: Date) {
        self.keyId = keyId
        self.attestedAt = attestedAt
    }
}
