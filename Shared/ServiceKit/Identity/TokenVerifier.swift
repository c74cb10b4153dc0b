import Contracts
import Foundation
import JWTKit
import Logging

/// Where the verifier gets auth's public keys: auth's own key ring in the auth service, its
/// JWKS over mutual TLS everywhere else.
public protocol PublicKeySource: Sendable {
    /// The current key set. Throws ``ServiceError`` `UPSTREAM_UNAVAILABLE` when unreachable.
    func fetchKeys() async throws -> JWKSDocument
}

/// Verifies access tokens for the gateway and every service, the same way everywhere.
///
/// - The algorithm is pinned to ES256 (``TokenAlgorithm``): a header naming anything else
///   (`none`, `HS256`, `EdDSA`) is refused before any key is touched.
/// - Keys are cached by `kid`. An unknown `kid` triggers one refetch of the key set (at most
///   one in flight, at most one per `refetchInterval`), which is how a rotated key is picked
///   up without a restart; a token whose `kid` is still unknown is refused.
/// - `iss`, `aud`, `exp` and `nbf` are checked against configuration and the injected clock,
///   with `leeway` seconds of tolerance for clock skew.
public actor TokenVerifier {
    private let source: any PublicKeySource
    private let issuer: String
    private let audience: String
    private let clock: any WallClock
    private let leeway: TimeInterval
    private let refetchInterval: TimeInterval
    private let logger: Logger

    private var keys = JWTKeyCollection()
    private var knownKeyIDs: Set<String> = []
    private var lastFetch: Date?
    private var inFlight: Task<Void, any Error>?

    public init(
        source: any PublicKeySource, issuer: String, audience: String, clock: any WallClock,
        leeway: TimeInterval = 30, refetchInterval: TimeInterval = 5, logger: Logger
    ) {
        self.source = source
        self.issuer = issuer
        self.audience = audience
        self.clock = clock
        self.leeway = leeway
        self.refetchInterval = refetchInterval
        self.logger = logger
    }

    /// Verifies `token`, returning who it acts for; throws `INVALID_TOKEN` for any token that
    /// is not a valid, current Pinhole access token, and `UPSTREAM_UNAVAILABLE` when the keys
    /// cannot be fetched.
    public func verify(_ token: String) async throws -> AuthenticatedUser {
        let header = try Self.header(of: token)
        guard header.alg == TokenAlgorithm.name, let kid = header.kid, !kid.isEmpty else {
            throw ServiceError.invalidToken
        }
        if !knownKeyIDs.contains(kid) {
            try await refreshKeys(force: lastFetch == nil)
            guard knownKeyIDs.contains(kid) else { throw ServiceError.invalidToken }
        }
        let claims: AccessClaims
        do {
            claims = try await keys.verify(token, as: AccessClaims.self)
        } catch {
            throw ServiceError.invalidToken
        }
        let now = clock.now()
        guard claims.iss.value == issuer,
            claims.aud.value.contains(audience),
            claims.exp.value.addingTimeInterval(leeway) > now,
            claims.nbf.value.addingTimeInterval(-leeway) <= now,
            !claims.sub.value.isEmpty, !claims.sid.isEmpty
        else { throw ServiceError.invalidToken }
        return AuthenticatedUser(
            userID: claims.sub.value, sessionID: claims.sid,
            scopes: Set(claims.scope.split(separator: " ").map(String.init)), expiresAt: claims.exp.value)
    }

    /// Fetches the key set now (at start, or after `pinhole keys rotate`).
    public func refreshKeys(force: Bool = true) async throws {
        if let inFlight {
            return try await inFlight.value
        }
        if !force, let lastFetch, clock.now().timeIntervalSince(lastFetch) < refetchInterval {
            return
        }
        let task = Task { try await self.load() }
        inFlight = task
        defer { inFlight = nil }
        try await task.value
    }

    private func load() async throws {
        let document = try await source.fetchKeys()
        let collection = JWTKeyCollection()
        var ids: Set<String> = []
        for key in document.keys where key.kty == "EC" && key.crv == "P-256" && key.alg == TokenAlgorithm.name {
            do {
                let publicKey = try ES256PublicKey(parameters: (key.x, key.y))
                await collection.add(ecdsa: publicKey, kid: JWKIdentifier(string: key.kid))
                ids.insert(key.kid)
            } catch {
                logger.warning("ignoring malformed signing key", metadata: ["kid": "\(key.kid)"])
            }
        }
        keys = collection
        knownKeyIDs = ids
        lastFetch = clock.now()
    }

    struct Header: Decodable {
        var alg: String?
        var kid: String?
    }

    static func header(of token: String) throws -> Header {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, token.utf8.count <= 8192,
            let data = Base64URL.decode(parts[0]),
            let header = try? JSONDecoder().decode(Header.self, from: data)
        else { throw ServiceError.invalidToken }
        return header
    }
}

/// Auth's JWKS fetched over mutual TLS from `GET /.well-known/jwks.json` on the auth service.
public struct RemoteKeySource: PublicKeySource {
    let client: InternalClient

    public init(client: InternalClient) {
        self.client = client
    }

    public func fetchKeys() async throws -> JWKSDocument {
        try await client.get(JWKSDocument.self, from: .auth, path: "/.well-known/jwks.json")
    }
}
