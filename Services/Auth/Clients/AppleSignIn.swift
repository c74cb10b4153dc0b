import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTypes
import JWTKit
import NIOCore
import NIOHTTP1
import ServiceHTTP

/// Who Apple says signed in.
struct AppleIdentity: Sendable, Equatable {
    var sub: String
    var email: String?
    var isPrivateEmail: Bool
    var clientID: String
    var issuedAt: Date
}

/// The claims of an Apple identity token. Times, issuer, audience and nonce are checked by
/// ``AppleSignIn`` with the injected clock and the configured values.
struct AppleIdentityClaims: JWTPayload {
    var iss: IssuerClaim
    var aud: AudienceClaim
    var sub: SubjectClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var nonce: String?
    var email: String?
    var isPrivateEmail: BoolClaim?

    enum CodingKeys: String, CodingKey {
        case iss, aud, sub, exp, iat, nonce, email
        case isPrivateEmail = "is_private_email"
    }

    func verify(using algorithm: some JWTAlgorithm) throws {}
}

/// Talks to Apple: verifies identity tokens against Apple's JWKS (the kit's ``KeySet``: cached,
/// loaded again for an unknown `kid`), exchanges authorization codes and revokes tokens with an ES256 client
/// secret. Every call goes through AsyncHTTPClient with a timeout; Apple being unreachable
/// is a 503, never a wrong "invalid token".
struct AppleSignIn: Sendable {
    let settings: AppleSettings
    let clock: any WallClock
    let http: HTTPClient
    private let keys: KeySet
    private let signingKey: ES256PrivateKey?

    static let clientSecretAudience = "https://appleid.apple.com"

    init(settings: AppleSettings, clock: any WallClock, http: HTTPClient = .shared) throws {
        self.settings = settings
        self.clock = clock
        self.http = http
        let keysURL = settings.baseURL + "/auth/keys"
        // Apple rotates its keys now and then: a token naming a new `kid` loads the set again
        // (each unknown `kid` at most once a minute).
        self.keys = KeySet(clock: clock, refetchInterval: 60) { try await Self.loadKeys(from: keysURL, http: http) }
        if let file = settings.privateKeyFile {
            guard settings.teamID != nil, settings.keyID != nil else {
                throw ConfigurationError("auth.apple.privateKeyFile needs auth.apple.teamId and auth.apple.keyId")
            }
            let pem = try String(contentsOf: file, encoding: .utf8)
            self.signingKey = try ES256PrivateKey(pem: pem)
        } else {
            self.signingKey = nil
        }
    }

    // MARK: - Identity tokens

    /// Verifies an identity token: Apple's signature, `iss`, `aud` among the bundle ids, `exp`,
    /// `iat`, and that its `nonce` is the SHA-256 of `rawNonce`. Anything wrong is
    /// `INVALID_CREDENTIALS`.
    func verify(_ token: String, rawNonce: String) async throws -> AppleIdentity {
        guard token.utf8.count <= 8192, let kid = Self.keyID(of: token) else { throw Self.invalid }
        guard let collection = try await keys.keys(for: kid) else { throw Self.invalid }
        let claims: AppleIdentityClaims
        do {
            claims = try await collection.verify(token, as: AppleIdentityClaims.self)
        } catch {
            throw Self.invalid
        }
        let now = clock.now()
        let expectedNonce = Hex.encode(SHA256.hash(data: Data(rawNonce.utf8)))
        guard claims.iss.value == settings.baseURL,
            let clientID = claims.aud.value.first(where: settings.bundleIDs.contains),
            claims.exp.value.addingTimeInterval(30) > now,
            claims.iat.value.addingTimeInterval(-30) <= now,
            !claims.sub.value.isEmpty,
            let nonce = claims.nonce, !rawNonce.isEmpty, nonce == expectedNonce
        else { throw Self.invalid }
        return AppleIdentity(
            sub: claims.sub.value, email: claims.email?.lowercased(),
            isPrivateEmail: claims.isPrivateEmail?.value ?? false,
            clientID: clientID, issuedAt: claims.iat.value)
    }

    /// Whether `token` is a valid identity token of `sub`, issued within the last
    /// `recentSignIn` seconds (to confirm an account deletion).
    func isRecent(_ token: String, nonce: String?, sub: String) async throws -> Bool {
        guard let nonce, let identity = try? await verify(token, rawNonce: nonce) else { return false }
        return identity.sub == sub && clock.now().timeIntervalSince(identity.issuedAt) <= settings.recentSignIn
    }

    // MARK: - Authorization codes and revocation

    /// Exchanges an authorization code for Apple's refresh token; nil when no client secret is
    /// configured. A code Apple refuses is `VALIDATION_FAILED`.
    func exchange(code: String, clientID: String) async throws -> String? {
        guard let secret = try await clientSecret(for: clientID) else { return nil }
        let response = try await postForm(
            "/auth/token",
            ["client_id": clientID, "client_secret": secret, "code": code, "grant_type": "authorization_code"])
        switch response.status {
        case .ok:
            struct Tokens: Decodable {
                var refreshToken: String?
                enum CodingKeys: String, CodingKey { case refreshToken = "refresh_token" }
            }
            return try? JSONDecoder().decode(Tokens.self, from: Data(response.body.readableBytesView)).refreshToken
        case .badRequest:
            throw ServiceError(.validationFailed, "Apple refused the authorization code (expired or already used).")
        default:
            throw ServiceError(
                .upstreamUnavailable, "Apple answered \(response.status.code).", headers: [.retryAfter: "5"])
        }
    }

    /// Revokes an Apple refresh token. Throws when Apple cannot be reached or refuses.
    func revoke(refreshToken: String, clientID: String) async throws {
        guard let secret = try await clientSecret(for: clientID) else {
            throw ServiceError(.upstreamUnavailable, "No Apple client secret is configured.")
        }
        let response = try await postForm(
            "/auth/revoke",
            ["client_id": clientID, "client_secret": secret, "token": refreshToken, "token_type_hint": "refresh_token"])
        guard response.status == .ok else {
            throw ServiceError(.upstreamUnavailable, "Apple answered \(response.status.code) to a revocation.")
        }
    }

    /// The client secret Apple asks for: an ES256 JWT from the team's key, valid 5 minutes.
    func clientSecret(for clientID: String) async throws -> String? {
        guard let signingKey, let teamID = settings.teamID, let keyID = settings.keyID else { return nil }
        struct ClientSecret: JWTPayload {
            var iss: IssuerClaim
            var iat: IssuedAtClaim
            var exp: ExpirationClaim
            var aud: AudienceClaim
            var sub: SubjectClaim
            func verify(using algorithm: some JWTAlgorithm) throws {}
        }
        let now = Date(timeIntervalSince1970: clock.now().timeIntervalSince1970.rounded(.down))
        let keys = await JWTKeyCollection().add(ecdsa: signingKey, kid: JWKIdentifier(string: keyID))
        return try await keys.sign(
            ClientSecret(
                iss: IssuerClaim(value: teamID), iat: IssuedAtClaim(value: now),
                exp: ExpirationClaim(value: now.addingTimeInterval(300)),
                aud: AudienceClaim(value: Self.clientSecretAudience), sub: SubjectClaim(value: clientID)),
            kid: JWKIdentifier(string: keyID))
    }

    private func postForm(_ path: String, _ fields: [String: String]) async throws -> InternalResponse {
        try await FormPost.send(fields, to: settings.baseURL + path, provider: "Apple", http: http)
    }

    /// Apple's JWKS (RS256 keys) from `url`. Apple being unreachable, or answering something
    /// else than a key set, is a 503: never a wrong "invalid token".
    static func loadKeys(from url: String, http: HTTPClient) async throws -> KeySet.Loaded {
        let text: String
        do {
            let response = try await http.execute(HTTPClientRequest(url: url), timeout: .seconds(10))
            guard response.status == .ok else {
                throw ServiceError(.upstreamUnavailable, "Apple's keys: \(response.status.code)")
            }
            text = String(buffer: try await response.body.collect(upTo: 1 << 20))
        } catch {
            throw ServiceError(.upstreamUnavailable, "Apple's keys cannot be fetched.", headers: [.retryAfter: "5"])
        }
        struct KeyIDs: Decodable {
            struct Key: Decodable { var kid: String? }
            var keys: [Key]
        }
        do {
            let collection = JWTKeyCollection()
            try await collection.add(jwksJSON: text)
            let ids = Set(try JSONDecoder().decode(KeyIDs.self, from: Data(text.utf8)).keys.compactMap(\.kid))
            return KeySet.Loaded(keys: collection, ids: ids)
        } catch {
            throw ServiceError(.upstreamUnavailable, "Apple's keys could not be read.")
        }
    }

    static func keyID(of token: String) -> String? {
        struct Header: Decodable { var kid: String? }
        guard let part = token.split(separator: ".", omittingEmptySubsequences: false).first,
            let data = Base64URL.decode(part), let header = try? JSONDecoder().decode(Header.self, from: data)
        else { return nil }
        return header.kid
    }

    static let invalid = ServiceError(.invalidCredentials, "The Apple identity token is not valid.")
}
