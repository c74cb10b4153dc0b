import Contracts
import Foundation
import JWTKit
import Logging
import Synchronization

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
///   one in flight; each unknown `kid` at most once per `refetchInterval`; fetches at least a
///   second apart, a later one waiting rather than refusing), which is how a rotated key is picked
///   up without a restart; a token whose `kid` is still unknown is refused.
/// - `iss`, `aud`, `exp` and `nbf` are checked against configuration and the injected clock,
///   with `leeway` seconds of tolerance for clock skew.
/// - A token that verified is remembered (by its exact text, up to `cacheSize` tokens) until it
///   expires, so a client sending the same token for fifteen minutes pays for one signature
///   check, not one per request. The cache holds only tokens that passed every check, and an
///   entry is dropped the moment its token expires.
///
/// - With a ``SessionStateCache`` (every service; not the gateway), the token's session must
///   still be live at auth, and the user gets its server-side flags (`limited`, roles). Guest
///   tokens have no session and skip this.
///
/// The hot path takes a lock for a dictionary lookup; only key refreshes go through an actor.
public final class TokenVerifier: Sendable {
    private let issuer: String
    private let audience: String
    private let clock: any WallClock
    private let leeway: TimeInterval
    private let cacheSize: Int
    private let keys: KeySet
    private let sessions: SessionStateCache?
    /// Tokens that passed every check, by their exact text.
    private let verified = Mutex([String: AuthenticatedUser]())

    public init(
        source: any PublicKeySource, issuer: String, audience: String, clock: any WallClock,
        leeway: TimeInterval = 30, refetchInterval: TimeInterval = 5, cacheSize: Int = 10_000,
        sessions: SessionStateCache? = nil, logger: Logger
    ) {
        self.sessions = sessions
        self.issuer = issuer
        self.audience = audience
        self.clock = clock
        self.leeway = leeway
        self.cacheSize = cacheSize
        self.keys = KeySet(clock: clock, refetchInterval: refetchInterval) {
            try await Self.load(from: source, logger: logger)
        }
    }

    /// Verifies `token`, returning who it acts for; throws `INVALID_TOKEN` for any token that
    /// is not a valid, current Pinhole access token, and `UPSTREAM_UNAVAILABLE` when the keys
    /// cannot be fetched.
    public func verify(_ token: String) async throws -> AuthenticatedUser {
        let user = try await verifySignedToken(token)
        guard let sessions, !user.isGuest else { return user }
        guard let session = try await sessions.state(of: user.sessionID), session.userId == user.userID else {
            throw ServiceError.invalidToken
        }
        return applying(session, to: user)
    }

    /// The user of session `id` as auth describes it now (roles, limits, a suspension), for a
    /// session a service tracks itself rather than through a token (the moderation console's
    /// cookie); nil when the session ended or is not `userID`'s. Needs a ``SessionStateCache``.
    public func liveSession(_ id: String, userID: String) async throws -> AuthenticatedUser? {
        guard let sessions, let session = try await sessions.state(of: id), session.userId == userID else {
            return nil
        }
        let user = AuthenticatedUser(userID: userID, sessionID: id, scopes: ["user"], expiresAt: .distantFuture)
        return applying(session, to: user)
    }

    /// `user` with auth's server-side flags of its session.
    private func applying(_ session: SessionState, to user: AuthenticatedUser) -> AuthenticatedUser {
        var current = user
        current.limited = session.limited
        current.roles = Set(session.roles)
        current.premium = session.premium
        current.phoneVerified = session.phoneVerified
        current.emailVerified = session.emailVerified
        current.tenantID = session.tenantId
        current.customerRef = session.customerRef
        current.attestedAt = session.attestedAt
        current.suspendedUntil = session.suspendedUntil.flatMap { $0 > clock.now() ? $0 : nil }
        return current
    }

    /// Who `token` acts for if it verified before and has not expired, without waiting for
    /// anything (the gateway's relay takes this on its event loop; a token not found there goes
    /// the way of ``verify(_:)``). Always nil where sessions are checked: a session's state is
    /// not in this cache.
    public func verifiedFromCache(_ token: String) -> AuthenticatedUser? {
        guard sessions == nil else { return nil }
        return cachedUser(for: token, at: clock.now())
    }

    /// The token's own checks: signature, algorithm, key, issuer, audience and times.
    private func verifySignedToken(_ token: String) async throws -> AuthenticatedUser {
        let now = clock.now()
        if let user = cachedUser(for: token, at: now) { return user }

        let header = try Self.header(of: token)
        guard header.alg == TokenAlgorithm.name, let kid = header.kid, !kid.isEmpty else {
            throw ServiceError.invalidToken
        }
        guard let keys = try await keys.keys(for: kid) else { throw ServiceError.invalidToken }

        let claims: AccessClaims
        do {
            claims = try await keys.verify(token, as: AccessClaims.self)
        } catch {
            throw ServiceError.invalidToken
        }
        guard claims.iss.value == issuer,
            claims.aud.value.contains(audience),
            claims.exp.value.addingTimeInterval(leeway) > now,
            claims.nbf.value.addingTimeInterval(-leeway) <= now,
            !claims.sub.value.isEmpty, !claims.sid.isEmpty
        else { throw ServiceError.invalidToken }
        let user = AuthenticatedUser(
            userID: claims.sub.value, sessionID: claims.sid,
            scopes: Set(claims.scope.split(separator: " ").map(String.init)), expiresAt: claims.exp.value)
        remember(token, as: user, at: now)
        return user
    }

    // MARK: - Verified-token cache

    private func cachedUser(for token: String, at now: Date) -> AuthenticatedUser? {
        guard cacheSize > 0 else { return nil }
        return verified.withLock { verified in
            guard let user = verified[token] else { return nil }
            if user.expiresAt.addingTimeInterval(leeway) > now { return user }
            verified.removeValue(forKey: token)
            return nil
        }
    }

    private func remember(_ token: String, as user: AuthenticatedUser, at now: Date) {
        guard cacheSize > 0 else { return }
        let leeway = self.leeway
        verified.withLock { verified in
            if verified.count >= cacheSize {
                verified = verified.filter { $0.value.expiresAt.addingTimeInterval(leeway) > now }
                // Still full of live tokens: start over rather than grow without bound.
                if verified.count >= cacheSize { verified.removeAll(keepingCapacity: true) }
            }
            verified[token] = user
        }
    }

    /// Auth's ES256 keys from `source`, as the verifier accepts them.
    static func load(from source: any PublicKeySource, logger: Logger) async throws -> KeySet.Loaded {
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
        return KeySet.Loaded(keys: collection, ids: ids)
    }

    // MARK: - Header

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
