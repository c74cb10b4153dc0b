import Crypto
import Foundation
import JWTKit
import ServiceHTTP

/// Tokens made outside auth, for tests that check what verifiers refuse: signed with auth's
/// real key but with wrong claims, signed with another key, or not signed at all.
public struct TestTokens: Sendable {
    let key: SigningKeyFile

    /// Uses the newest signing key of a data directory.
    public init(dataDirectory: URL) throws {
        let keys = try SigningKeyStore.load(from: SigningKeyStore.defaultDirectory(dataDirectory: dataDirectory))
        guard let key = keys.last else { throw ConfigurationError("no signing key") }
        self.key = key
    }

    /// The id of the real signing key.
    public var keyID: String { key.kid }

    /// A token signed with the real key, with claims adjusted by `change`.
    public func signed(
        subject: String = "user-1", issuer: String = "pinhole", audience: String = "pinhole-api",
        issuedAt: Date = Date(), lifetime: TimeInterval = 900, notBefore: Date? = nil,
        sessionID: String = "session-1", scope: String = "user"
    ) async throws -> String {
        var claims = AccessClaims(
            issuer: issuer, audience: audience, subject: subject, issuedAt: issuedAt,
            expiresAt: issuedAt.addingTimeInterval(lifetime), tokenID: UUID().uuidString, sessionID: sessionID,
            scope: scope)
        if let notBefore { claims.nbf = NotBeforeClaim(value: notBefore) }
        let keys = JWTKeyCollection()
        let privateKey = try ES256PrivateKey(
            backing: P256.Signing.PrivateKey(rawRepresentation: Base64URL.decode(key.d)!))
        await keys.add(ecdsa: privateKey, kid: JWKIdentifier(string: key.kid))
        return try await keys.sign(claims, kid: JWKIdentifier(string: key.kid))
    }

    /// A well-formed token with the real key id but signed by a different key.
    public func forged(subject: String = "user-1") async throws -> String {
        let claims = AccessClaims(
            issuer: "pinhole", audience: "pinhole-api", subject: subject, issuedAt: Date(),
            expiresAt: Date().addingTimeInterval(900), tokenID: UUID().uuidString, sessionID: "session-1",
            scope: "user")
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: ES256PrivateKey(), kid: JWKIdentifier(string: key.kid))
        return try await keys.sign(claims, kid: JWKIdentifier(string: key.kid))
    }

    /// An unsigned token (`alg: none`) with valid claims and the real key id.
    public func unsigned(subject: String = "user-1") -> String {
        let header = #"{"alg":"none","typ":"JWT","kid":"\#(key.kid)"}"#
        let now = Int(Date().timeIntervalSince1970)
        let payload =
            #"{"iss":"pinhole","aud":"pinhole-api","sub":"\#(subject)","exp":\#(now + 900),"nbf":\#(now),"iat":\#(now),"jti":"x","sid":"session-1","scope":"user"}"#
        return Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(payload.utf8)) + "."
    }

    /// The real token with its signature replaced by an HMAC over the public key (the classic
    /// algorithm-confusion attack), header `HS256`.
    public func hmacConfused(subject: String = "user-1") -> String {
        let header = #"{"alg":"HS256","typ":"JWT","kid":"\#(key.kid)"}"#
        let now = Int(Date().timeIntervalSince1970)
        let payload =
            #"{"iss":"pinhole","aud":"pinhole-api","sub":"\#(subject)","exp":\#(now + 900),"nbf":\#(now),"iat":\#(now),"jti":"x","sid":"session-1","scope":"user"}"#
        let input = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(payload.utf8))
        let mac = HMAC<SHA256>.authenticationCode(
            for: Data(input.utf8), using: SymmetricKey(data: Data((key.x + key.y).utf8)))
        return input + "." + Base64URL.encode(Data(mac))
    }
}
