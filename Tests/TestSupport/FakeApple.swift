import AsyncHTTPClient
import Crypto
import CryptoExtras
import Foundation
import Hummingbird
import JWTKit
import ServiceHTTP
import Synchronization

/// A local stand-in for Apple's Sign in with Apple servers, over real HTTP on loopback:
/// `GET /auth/keys` (RS256 JWKS), `POST /auth/token` (authorization-code exchange) and
/// `POST /auth/revoke`. Both POSTs check the client secret as Apple does: an ES256 JWT from the
/// team's key, `iss` the team, `sub` the client id, `aud` `https://appleid.apple.com`.
public final class FakeApple: Sendable {
    public let url: String
    public let teamID = "TEAM123456"
    public let keyID = "KEY1234567"
    /// The team's `.p8` private key, for auth's `auth.apple.privateKeyFile`.
    public let teamKeyFile: URL
    private let teamKey: P256.Signing.PrivateKey
    private let state: Mutex<State>
    private let running: Mutex<RunningApplication?> = Mutex(nil)

    struct SigningKey: Sendable {
        let kid: String
        let key: JWTKit.Insecure.RSA.PrivateKey
        let jwk: [String: String]
    }

    struct State: Sendable {
        var keys: [SigningKey] = []
        var codes: [String: String] = [:]
        var revoked: [String] = []
        var refusedSecrets = 0
    }

    private init(url: String, teamKeyFile: URL, teamKey: P256.Signing.PrivateKey) throws {
        self.url = url
        self.teamKeyFile = teamKeyFile
        self.teamKey = teamKey
        self.state = Mutex(State())
        try rotateKey()
    }

    /// Starts the fake on a free loopback port; the team key is written under `directory`.
    public static func start(directory: URL) async throws -> FakeApple {
        let port = try FreePort.next()
        let teamKey = P256.Signing.PrivateKey()
        let keyFile = directory.appendingPathComponent("AuthKey_KEY1234567.p8")
        try FileSystem.writeOwnerOnly(Data(teamKey.pemRepresentation.utf8), to: keyFile)
        let fake = try FakeApple(url: "http://127.0.0.1:\(port)", teamKeyFile: keyFile, teamKey: teamKey)
        let app = Application(
            router: fake.router(), configuration: .init(address: .hostname("127.0.0.1", port: port)),
            logger: .test("fake-apple"))
        let started = try await RunningApplication.start(app)
        fake.running.withLock { $0 = started }
        _ = await eventually { (try? await HTTPClient.shared.call(.GET, fake.url + "/auth/keys"))?.status == 200 }
        return fake
    }

    public func stop() async {
        let app = running.withLock { $0 }
        await app?.stop()
    }

    /// A new RS256 signing key, published next to the old ones (Apple rotates like this).
    public func rotateKey() throws {
        let backing = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let key = try JWTKit.Insecure.RSA.PrivateKey(backing: backing)
        let primitives = try backing.publicKey.getKeyPrimitives()
        let (modulus, exponent) = (primitives.modulus, primitives.publicExponent)
        let kid = "apple-\(UUID().uuidString.prefix(8))"
        let jwk = [
            "kty": "RSA", "kid": kid, "use": "sig", "alg": "RS256", "n": Base64URL.encode(modulus),
            "e": Base64URL.encode(exponent),
        ]
        state.withLock { $0.keys.append(SigningKey(kid: kid, key: key, jwk: jwk)) }
    }

    /// An identity token as Apple would sign it (with the newest key, unless `kid` names one).
    public func identityToken(
        sub: String, audience: String, rawNonce: String?, email: String? = nil, isPrivateEmail: Bool = false,
        issuedAt: Date = Date(), lifetime: TimeInterval = 600, issuer: String? = nil
    ) async throws -> String {
        struct Claims: JWTPayload {
            var iss: IssuerClaim
            var aud: AudienceClaim
            var sub: SubjectClaim
            var iat: IssuedAtClaim
            var exp: ExpirationClaim
            var nonce: String?
            var email: String?
            var is_private_email: String?
            func verify(using algorithm: some JWTAlgorithm) throws {}
        }
        let signing = try state.withLock { state in
            guard let last = state.keys.last else { throw StackError("no key") }
            return last
        }
        let keys = await JWTKeyCollection().add(
            rsa: signing.key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: signing.kid))
        let nonce = rawNonce.map { Hex.encode(SHA256.hash(data: Data($0.utf8))) }
        return try await keys.sign(
            Claims(
                iss: IssuerClaim(value: issuer ?? url), aud: AudienceClaim(value: audience),
                sub: SubjectClaim(value: sub),
                iat: IssuedAtClaim(value: issuedAt), exp: ExpirationClaim(value: issuedAt.addingTimeInterval(lifetime)),
                nonce: nonce, email: email, is_private_email: isPrivateEmail ? "true" : nil),
            kid: JWKIdentifier(string: signing.kid))
    }

    /// A one-time authorization code that `POST /auth/token` exchanges for a refresh token.
    public func issueCode() -> (code: String, refreshToken: String) {
        let code = "c.\(UUID().uuidString)"
        let refresh = "r.\(UUID().uuidString)"
        state.withLock { $0.codes[code] = refresh }
        return (code, refresh)
    }

    /// Refresh tokens revoked so far.
    public var revokedTokens: [String] { state.withLock { $0.revoked } }

    /// Client secrets that failed the check.
    public var refusedSecrets: Int { state.withLock { $0.refusedSecrets } }

    // MARK: - Server

    private func router() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/auth/keys") { [self] _, _ -> Response in
            let keys = state.withLock { $0.keys.map(\.jwk) }
            let body = try JSONSerialization.data(withJSONObject: ["keys": keys])
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        router.post("/auth/token") { [self] request, _ -> Response in
            let form = try await Self.form(request)
            guard await checkSecret(form) else { return Self.json(.unauthorized, #"{"error":"invalid_client"}"#) }
            let refresh = state.withLock { state in form["code"].flatMap { state.codes.removeValue(forKey: $0) } }
            guard form["grant_type"] == "authorization_code", let refresh else {
                return Self.json(.badRequest, #"{"error":"invalid_grant"}"#)
            }
            return Self.json(
                .ok, #"{"access_token":"a.x","token_type":"Bearer","expires_in":3600,"refresh_token":"\#(refresh)"}"#)
        }
        router.post("/auth/revoke") { [self] request, _ -> Response in
            let form = try await Self.form(request)
            guard await checkSecret(form), let token = form["token"] else {
                return Self.json(.badRequest, #"{"error":"invalid_client"}"#)
            }
            state.withLock { $0.revoked.append(token) }
            return Response(status: .ok)
        }
        return router
    }

    private func checkSecret(_ form: [String: String]) async -> Bool {
        struct Secret: JWTPayload {
            var iss: IssuerClaim
            var aud: AudienceClaim
            var sub: SubjectClaim
            var exp: ExpirationClaim
            func verify(using algorithm: some JWTAlgorithm) throws {}
        }
        guard let publicKey = try? ES256PublicKey(backing: teamKey.publicKey) else { return false }
        let keys = await JWTKeyCollection().add(ecdsa: publicKey, kid: JWKIdentifier(string: keyID))
        guard let secret = form["client_secret"], let clientID = form["client_id"],
            let claims = try? await keys.verify(secret, as: Secret.self),
            claims.iss.value == teamID, claims.sub.value == clientID,
            claims.aud.value == ["https://appleid.apple.com"], claims.exp.value > Date()
        else {
            state.withLock { $0.refusedSecrets += 1 }
            return false
        }
        return true
    }

    private static func form(_ request: Request) async throws -> [String: String] {
        var request = request
        let body = String(buffer: try await request.collectBody(upTo: 1 << 16))
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    private static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}
