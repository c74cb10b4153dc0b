import Crypto
import CryptoExtras
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdHTTP2
import JWTKit
import NIOCore
import NIOSSL
import ServiceHTTP
import Synchronization

/// Local stand-ins for the three push providers, on one HTTP/2-over-TLS listener (ALPN `h2`,
/// HTTP/1.1 fallback), each at its real paths and checking what the real one checks:
///
/// - APNs: `POST /3/device/{token}` with an ES256 provider token from the team's key (`kid`,
///   `iss`), `apns-topic` and `apns-push-type`; answers `apns-id`, or Apple's errors.
/// - FCM: `POST /token` (the JWT bearer grant, RS256 from the service account's key) and
///   `POST /v1/projects/{id}/messages:send` with the access token it gave; FCM's errors.
/// - Expo: `POST /--/api/v2/push/send` (at most 100 messages) and `/--/api/v2/push/getReceipts`.
///
/// The certificate comes from the test data directory's local authority: point alerts'
/// `alerts.push.trustRootsFile` at ``caFile``.
public final class FakePushProviders: Sendable {
    public let url: String
    public let caFile: URL
    public let teamID = FakeProviderFiles.apnsTeamID
    public let keyID = FakeProviderFiles.apnsKeyID
    public let projectID = "pinhole-test"
    /// The APNs team key (`.p8`) and the FCM service account key (JSON), both owner-only.
    public let apnsKeyFile: URL
    public let serviceAccountFile: URL
    private let providerTokens: ProviderTokenCheck
    private let fcmKey: JWTKit.Insecure.RSA.PrivateKey
    private let state = Mutex(State())
    private let running: Mutex<RunningApplication?> = Mutex(nil)

    /// One push a fake accepted.
    public struct Push: Sendable {
        public var provider: String
        public var token: String
        public var headers: [String: String]
        public var body: [String: any Sendable]
        public var http2: Bool
        public var connection: String
    }

    struct State {
        var pushes: [Push] = []
        var refusals: [String: (status: Int, body: String)] = [:]
        var refused: [String: Int] = [:]
        var throttled = 0
        var accessTokens: Set<String> = []
        var tokenGrants = 0
        var keepPushes = true
        var accepted: [String: Int] = [:]
        var connections: [String: Set<String>] = [:]
        var deadAtReceipt: Set<String> = []
        var tickets: [String: String] = [:]
        var badAuth = 0
        var stalls: [String: Duration] = [:]
        /// How far the pushing stack's clock is ahead of this process's (a faked clock).
        var clockOffset: TimeInterval = 0
    }

    private init(
        url: String, caFile: URL, apnsKeyFile: URL, serviceAccountFile: URL, providerTokens: ProviderTokenCheck,
        fcmKey: JWTKit.Insecure.RSA.PrivateKey
    ) {
        self.url = url
        self.caFile = caFile
        self.apnsKeyFile = apnsKeyFile
        self.serviceAccountFile = serviceAccountFile
        self.providerTokens = providerTokens
        self.fcmKey = fcmKey
    }

    /// Starts the fakes on a free loopback port, keys and certificate under `directory`.
    public static func start(directory: TestDataDirectory) async throws -> FakePushProviders {
        let port = try FreePort.next()
        let files = try FakeProviderFiles.make(in: directory, folder: "fake-push")
        let rsa = try Self.serviceAccountKey.get()
        let url = "https://127.0.0.1:\(port)"
        let account: [String: String] = [
            "type": "service_account", "project_id": "pinhole-test", "private_key": rsa.pemRepresentation,
            "client_email": "pusher@pinhole-test.iam.gserviceaccount.com", "token_uri": url + "/token",
        ]
        let serviceAccountFile = files.folder.appendingPathComponent("service-account.json")
        try FileSystem.writeOwnerOnly(try JSONSerialization.data(withJSONObject: account), to: serviceAccountFile)

        let fake = FakePushProviders(
            url: url, caFile: files.caFile, apnsKeyFile: files.apnsKeyFile, serviceAccountFile: serviceAccountFile,
            providerTokens: try ProviderTokenCheck(files.apnsKey.publicKey),
            fcmKey: try JWTKit.Insecure.RSA.PrivateKey(backing: rsa))
        let tls = try files.serverTLS(protocols: ["h2", "http/1.1"])
        let app = Application(
            router: fake.router(), server: try .http2Upgrade(tlsConfiguration: tls),
            configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: .test("fake-push"))
        fake.running.withLock { $0 = nil }
        let started = try await RunningApplication.start(app)
        fake.running.withLock { $0 = started }
        return fake
    }

    /// One RSA key per test process: making a 2048-bit key takes a debug build most of a second.
    private static let serviceAccountKey = Result { try _RSA.Signing.PrivateKey(keySize: .bits2048) }

    public func stop() async {
        let app = running.withLock { $0 }
        await app?.stop()
    }

    // MARK: - What the tests set and read

    /// Every push accepted so far, in order.
    public var pushes: [Push] { state.withLock { $0.pushes } }

    /// Judges provider tokens' age by a clock set to `date` (the stack's moved clock), as
    /// Apple would if the stack's clock were true.
    public func moveClock(to date: Date) {
        state.withLock { $0.clockOffset = date.timeIntervalSinceNow }
    }

    /// Answers pushes to `token` (any provider) with this status and body from now on.
    public func refuse(_ token: String, status: Int, body: String) {
        state.withLock { $0.refusals[token] = (status, body) }
    }

    /// Makes `provider` (`apns`, `fcm`, `expo`) wait `delay` before answering each push.
    public func stall(_ provider: String, for delay: Duration) {
        state.withLock { $0.stalls[provider] = delay }
    }

    private func stallIfAsked(_ provider: String) async {
        if let delay = state.withLock({ $0.stalls[provider] }) { try? await Task.sleep(for: delay) }
    }

    /// The next `count` pushes (any provider) get a 429 with `Retry-After: 1`.
    public func throttle(next count: Int) {
        state.withLock { $0.throttled = count }
    }

    /// Counts accepted pushes without keeping them (``pushes`` stays empty): for benchmarks
    /// that push a hundred thousand.
    public func countPushesOnly() {
        state.withLock { $0.keepPushes = false }
    }

    /// Pushes `provider` accepted so far, and over how many connections they came.
    public func accepted(_ provider: String) -> (pushes: Int, connections: Int) {
        state.withLock { ($0.accepted[provider, default: 0], $0.connections[provider, default: []].count) }
    }

    /// How many requests to `token` were answered with its refusal (``refuse(_:status:body:)``).
    public func refusals(of token: String) -> Int {
        state.withLock { $0.refused[token, default: 0] }
    }

    /// Expo tokens whose receipt says `DeviceNotRegistered`.
    public func failAtReceipt(_ token: String) {
        state.withLock { _ = $0.deadAtReceipt.insert(token) }
    }

    /// How many APNs provider tokens and FCM access tokens were seen or granted, and requests
    /// refused for their authorization.
    public var providerTokensSeen: Int { providerTokens.seen }
    public var accessTokensGranted: Int { state.withLock { $0.tokenGrants } }
    public var refusedAuthorizations: Int { state.withLock { $0.badAuth } }

    // MARK: - Server

    struct Context: RequestContext {
        var coreContext: CoreRequestContextStorage
        let channel: any Channel

        init(source: ApplicationRequestContextSource) {
            coreContext = .init(source: source)
            channel = source.channel
        }
    }

    private func router() -> Router<Context> {
        let router = Router(context: Context.self)
        router.post("/3/device/:token") { [self] request, context in try await apns(request, context) }
        router.post("/token") { [self] request, _ in try await grant(request) }
        router.post("/v1/projects/:project/messages:send") { [self] request, context in try await fcm(request, context)
        }
        router.post("/--/api/v2/push/send") { [self] request, context in try await expo(request, context) }
        router.post("/--/api/v2/push/getReceipts") { [self] request, _ in try await receipts(request) }
        return router
    }

    private func record(
        _ provider: String, token: String, request: Request, body: [String: any Sendable], context: Context
    ) -> Response? {
        let connection = "\(context.channel.parent?.remoteAddress ?? context.channel.remoteAddress, default: "?")"
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        return state.withLock { state -> Response? in
            if state.throttled > 0 {
                state.throttled -= 1
                return Self.json(.tooManyRequests, #"{"reason":"TooManyRequests"}"#, headers: [.retryAfter: "1"])
            }
            if let refusal = state.refusals[token] {
                state.refused[token, default: 0] += 1
                return Self.json(HTTPResponse.Status(code: refusal.status), refusal.body)
            }
            state.accepted[provider, default: 0] += 1
            state.connections[provider, default: []].insert(connection)
            guard state.keepPushes else { return nil }
            state.pushes.append(
                Push(
                    provider: provider, token: token, headers: headers, body: body,
                    http2: context.channel.parent != nil, connection: connection))
            return nil
        }
    }

    private func apns(_ request: Request, _ context: Context) async throws -> Response {
        await stallIfAsked("apns")
        let token = try context.parameters.require("token")
        guard let authorization = request.headers[.authorization], authorization.hasPrefix("bearer "),
            await validProviderToken(String(authorization.dropFirst(7)))
        else {
            state.withLock { $0.badAuth += 1 }
            return Self.json(.forbidden, #"{"reason":"InvalidProviderToken"}"#)
        }
        guard request.headers[HTTPField.Name("apns-topic")!] != nil,
            request.headers[HTTPField.Name("apns-push-type")!] == "alert"
        else { return Self.json(.badRequest, #"{"reason":"MissingTopic"}"#) }
        let body = try await Self.object(request)
        if let refused = record("apns", token: token, request: request, body: body, context: context) { return refused }
        return Response(status: .ok, headers: [HTTPField.Name("apns-id")!: UUID().uuidString])
    }

    private func validProviderToken(_ token: String) async -> Bool {
        // Ages are judged on the pushing stack's clock, for a token seen before as for a new one.
        await providerTokens.verify(token, clockOffset: state.withLock { $0.clockOffset })
    }

    private func grant(_ request: Request) async throws -> Response {
        var request = request
        let form = String(buffer: try await request.collectBody(upTo: 1 << 16))
        var fields: [String: String] = [:]
        for pair in form.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        struct Assertion: JWTPayload {
            var iss: IssuerClaim
            var scope: String
            var aud: AudienceClaim
            func verify(using algorithm: some JWTAlgorithm) throws {}
        }
        let keys = await JWTKeyCollection().add(rsa: fcmKey.publicKey, digestAlgorithm: .sha256)
        guard fields["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer",
            let assertion = fields["assertion"],
            let claims = try? await keys.verify(assertion, as: Assertion.self),
            claims.scope == "https://www.googleapis.com/auth/firebase.messaging",
            claims.aud.value.contains(url + "/token")
        else { return Self.json(.badRequest, #"{"error":"invalid_grant"}"#) }
        let token = "ya29.fake-\(UUID().uuidString)"
        state.withLock { state in
            state.accessTokens.insert(token)
            state.tokenGrants += 1
        }
        return Self.json(.ok, #"{"access_token":"\#(token)","expires_in":3599,"token_type":"Bearer"}"#)
    }

    private func fcm(_ request: Request, _ context: Context) async throws -> Response {
        let bearer = request.headers[.authorization].map { String($0.dropFirst("Bearer ".count)) } ?? ""
        guard state.withLock({ $0.accessTokens.contains(bearer) }) else {
            state.withLock { $0.badAuth += 1 }
            return Self.json(.unauthorized, #"{"error":{"code":401,"status":"UNAUTHENTICATED"}}"#)
        }
        let body = try await Self.object(request)
        guard let message = body["message"] as? [String: any Sendable], let token = message["token"] as? String else {
            return Self.json(.badRequest, #"{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"no token"}}"#)
        }
        if let refused = record("fcm", token: token, request: request, body: message, context: context) {
            return refused
        }
        return Self.json(.ok, #"{"name":"projects/\#(projectID)/messages/\#(UUID().uuidString)"}"#)
    }

    private func expo(_ request: Request, _ context: Context) async throws -> Response {
        var request = request
        let data = Data(buffer: try await request.collectBody(upTo: 1 << 20))
        guard let messages = try JSONSerialization.jsonObject(with: data) as? [[String: Any]], messages.count <= 100
        else { return Self.json(.badRequest, #"{"errors":[{"code":"VALIDATION_ERROR"}]}"#) }
        var tickets: [[String: Any]] = []
        for message in messages {
            let token = message["to"] as? String ?? ""
            let sendable = message.mapValues { Self.sendable($0) }
            if let refused = record("expo", token: token, request: request, body: sendable, context: context) {
                if refused.status == .tooManyRequests { return refused }
                tickets.append([
                    "status": "error", "message": "\(token) is not a registered push notification recipient",
                    "details": ["error": "DeviceNotRegistered"],
                ])
                continue
            }
            let id = UUID().uuidString
            state.withLock { $0.tickets[id] = token }
            tickets.append(["status": "ok", "id": id])
        }
        let body = try JSONSerialization.data(withJSONObject: ["data": tickets])
        return Response(
            status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    private func receipts(_ request: Request) async throws -> Response {
        var request = request
        let data = Data(buffer: try await request.collectBody(upTo: 1 << 20))
        let ids = (try JSONSerialization.jsonObject(with: data) as? [String: [String]])?["ids"] ?? []
        let receipts = state.withLock { state in
            Dictionary(
                uniqueKeysWithValues: ids.compactMap { id -> (String, [String: Any])? in
                    guard let token = state.tickets[id] else { return nil }
                    if state.deadAtReceipt.contains(token) {
                        return (id, ["status": "error", "details": ["error": "DeviceNotRegistered"]])
                    }
                    return (id, ["status": "ok"])
                })
        }
        let body = try JSONSerialization.data(withJSONObject: ["data": receipts])
        return Response(
            status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    private static func object(_ request: Request) async throws -> [String: any Sendable] {
        var request = request
        let data = Data(buffer: try await request.collectBody(upTo: 1 << 20))
        let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        return object.mapValues { Self.sendable($0) }
    }

    private static func sendable(_ value: Any) -> any Sendable {
        switch value {
        case let object as [String: Any]: return object.mapValues { sendable($0) }
        case let array as [Any]: return array.map { sendable($0) }
        case let number as NSNumber: return number.doubleValue
        case let text as String: return text
        default: return "\(value)"
        }
    }

    private static func json(_ status: HTTPResponse.Status, _ text: String, headers: HTTPFields = [:]) -> Response {
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

/// What a fake provider serves with: a TLS certificate for loopback from the test data
/// directory's local authority (trusted through ``caFile``) and an APNs team key (`.p8`), in an
/// owner-only folder of the data directory.
struct FakeProviderFiles {
    static let apnsKeyID = "APNSKEY123"
    static let apnsTeamID = "TEAM123456"

    let folder: URL
    let caFile: URL
    let certificate: URL
    let key: URL
    let apnsKeyFile: URL
    let apnsKey: P256.Signing.PrivateKey

    static func make(in directory: TestDataDirectory, folder name: String) throws -> FakeProviderFiles {
        let folder = directory.url.appendingPathComponent(name)
        try FileSystem.makeOwnerOnlyDirectory(folder)
        let (certificate, key) = (folder.appendingPathComponent("tls.crt"), folder.appendingPathComponent("tls.key"))
        try LocalAuthority(dataDirectory: directory.url).issueServerCertificate(
            hostNames: ["localhost", "127.0.0.1"], certificateFile: certificate, keyFile: key)
        let apnsKey = P256.Signing.PrivateKey()
        let apnsKeyFile = folder.appendingPathComponent("AuthKey_\(apnsKeyID).p8")
        try FileSystem.writeOwnerOnly(Data(apnsKey.pemRepresentation.utf8), to: apnsKeyFile)
        return FakeProviderFiles(
            folder: folder, caFile: directory.url.appendingPathComponent("pki/ca.crt"), certificate: certificate,
            key: key, apnsKeyFile: apnsKeyFile, apnsKey: apnsKey)
    }

    /// The server side of TLS with this certificate, offering `protocols` by ALPN.
    func serverTLS(protocols: [String]) throws -> TLSConfiguration {
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificate.path).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: key.path, format: .pem)))
        tls.applicationProtocols = protocols
        return tls
    }
}

/// Apple's check of an APNs provider token: ES256 by the team's key (`kid` the key id), `iss`
/// the team, issued within the hour. Each token's signature is verified once and its issue time
/// kept (Apple, too, does not verify the same token on every push).
final class ProviderTokenCheck: Sendable {
    private let key: ES256PublicKey
    private let issued = Mutex<[String: Date]>([:])

    init(_ key: P256.Signing.PublicKey) throws {
        self.key = try ES256PublicKey(pem: key.pemRepresentation)
    }

    /// How many distinct tokens were accepted.
    var seen: Int { issued.withLock { $0.count } }

    /// Whether `token` is valid now; `clockOffset` is how far the pushing side's clock is ahead.
    /// Nil when the token was never seen, and its signature is still to be verified.
    func known(_ token: String, clockOffset: TimeInterval = 0) -> Bool? {
        guard let at = issued.withLock({ $0[token] }) else { return nil }
        return abs(at.timeIntervalSinceNow - clockOffset) < 3600
    }

    func verify(_ token: String, clockOffset: TimeInterval = 0) async -> Bool {
        if let known = known(token, clockOffset: clockOffset) { return known }
        struct ProviderToken: JWTPayload {
            var iss: IssuerClaim
            var iat: IssuedAtClaim
            func verify(using algorithm: some JWTAlgorithm) throws {}
        }
        let keys = await JWTKeyCollection().add(ecdsa: key, kid: JWKIdentifier(string: FakeProviderFiles.apnsKeyID))
        guard let claims = try? await keys.verify(token, as: ProviderToken.self),
            claims.iss.value == FakeProviderFiles.apnsTeamID,
            abs(claims.iat.value.timeIntervalSinceNow - clockOffset) < 3600
        else { return false }
        issued.withLock { $0[token] = claims.iat.value }
        return true
    }
}
