import Configuration
import Contracts
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceHTTP
import ServiceStore

/// Auth's public keys read straight from a test data directory, so that a service can verify
/// tokens in process without auth running.
public struct TestKeySource: PublicKeySource {
    let directory: URL

    public init(dataDirectory: URL) {
        self.directory = SigningKeyStore.defaultDirectory(dataDirectory: dataDirectory)
    }

    public func fetchKeys() async throws -> JWKSDocument {
        JWKSDocument(keys: try SigningKeyStore.load(from: directory).map { PublicJWK(x: $0.x, y: $0.y, kid: $0.kid) })
    }
}

/// One service built in process the way its executable builds it, over a fresh data
/// directory, with a manual clock and tokens signed by the directory's key.
public struct ServiceHarness: Sendable {
    public let directory: TestDataDirectory
    public let runtime: ServiceRuntime
    public let clock: ManualClock
    public let reader: ConfigReader
    let tokens: TestTokens

    /// `sessions` answers as auth would about each session (tokens from ``token(for:)`` carry
    /// session id `session-1`); without it, sessions are not checked.
    public init(
        _ name: ServiceName, config: [String: String] = [:], clock: ManualClock = ManualClock(Date()),
        sessions: Lookup<SessionState>? = nil
    ) throws {
        let directory = try TestDataDirectory.make()
        self.directory = directory
        self.clock = clock
        self.reader = directory.reader(config)
        self.runtime = try ServiceRuntime(
            name: name, reader: reader, clock: clock, keySource: TestKeySource(dataDirectory: directory.url),
            sessionLookup: sessions, viewKeys: TestViewKeys.ring)
        self.tokens = try TestTokens(dataDirectory: directory.url)
    }

    /// A valid access token for `user`, in session `session`.
    public func token(for user: String, session: String = "session-1") async throws -> String {
        try await tokens.signed(subject: user, issuedAt: clock.now(), sessionID: session)
    }

    /// Drives the router of `parts` in process, then removes the data directory.
    /// `live`: over a real loopback socket (plain HTTP/1.1; `client.port` names it), for
    /// responses that stream.
    public func test<Context: ServiceRequestContextProtocol>(
        _ parts: ServiceParts<Context>, live: Bool = false,
        _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    ) async throws {
        defer { directory.remove() }
        let app = Application(
            router: parts.router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            logger: .test("service"))
        try await app.test(live ? .live : .router, body)
    }
}

extension TestClientProtocol {
    /// Sends JSON and returns the response.
    public func post(
        _ path: String, _ json: some Encodable, token: String? = nil, headers: HTTPFields = [:]
    ) async throws -> TestResponse {
        try await send(.post, path, json, token: token, headers: headers)
    }

    /// Sends JSON with any method.
    public func send(
        _ method: HTTPRequest.Method, _ path: String, _ json: some Encodable, token: String? = nil,
        headers: HTTPFields = [:]
    ) async throws -> TestResponse {
        var headers = headers
        headers[.contentType] = "application/json"
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await execute(
            uri: path, method: method, headers: headers, body: ByteBuffer(bytes: try JSONCoding.encoder().encode(json)))
    }

    /// Sends a request without a body.
    public func request(
        _ method: HTTPRequest.Method, _ path: String, token: String? = nil
    ) async throws
        -> TestResponse
    {
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await execute(uri: path, method: method, headers: headers)
    }

    public func get(_ path: String, token: String? = nil) async throws -> TestResponse {
        try await request(.get, path, token: token)
    }

    /// Every item of a paged list: `path` (with its query), then each `nextCursor` in turn.
    public func allPages<Item: Codable & Sendable>(
        _ path: String, token: String, of type: Item.Type
    ) async throws -> [Item] {
        var items: [Item] = []
        var cursor: String?
        let separator = path.contains("?") ? "&" : "?"
        repeat {
            let page = try await get(path + (cursor.map { "\(separator)cursor=\($0)" } ?? ""), token: token)
                .json(Page<Item>.self)
            items += page.items
            cursor = page.nextCursor
        } while cursor != nil
        return items
    }
}

extension TestResponse {
    /// Decodes the JSON body.
    public func json<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONCoding.decoder().decode(type, from: Data(body.readableBytesView))
    }

    /// The error envelope's body, if the response is an error.
    public var error: ErrorBody? {
        try? json(ErrorEnvelope.self).error
    }
}

extension ServiceHarness {
    /// The service's own database file, opened beside the running service (WAL allows it),
    /// for tests that check stored state or apply an event the way the inbox does.
    public func database() throws -> DatabaseQueue {
        try DatabaseQueue(path: databasePath(), configuration: Self.besideTheService)
    }

    /// The same file as a pool: a second store on the service's database (a store type takes
    /// a pool).
    public func databasePool() throws -> DatabasePool {
        try DatabasePool(path: databasePath(), configuration: Self.besideTheService)
    }

    func databasePath() throws -> String {
        try runtime.settings.ownDirectory().appendingPathComponent("\(runtime.settings.name.rawValue).sqlite").path
    }

    /// The service writes too (its outbox, its jobs): a handle beside it waits for its lock
    /// instead of failing.
    static var besideTheService: Configuration {
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        return configuration
    }

    /// The event types waiting in the service's outbox, oldest first.
    public func outboxTypes() throws -> [String] {
        try database().read { db in try String.fetchAll(db, sql: "SELECT type FROM kit_outbox_event ORDER BY seq") }
    }

    /// The payloads of the waiting events of type `Event`, oldest first.
    public func outboxEvents<Event: DomainEvent>(_ type: Event.Type) throws -> [Event] {
        try database().read { db in
            try Data.fetchAll(
                db, sql: "SELECT body FROM kit_outbox_event WHERE type = ? ORDER BY seq",
                arguments: [Event.eventType.rawValue]
            ).map { try JSONCoding.decoder().decode(EventEnvelope<Event>.self, from: $0).payload }
        }
    }
}

extension ServiceHarness {
    /// The broken or wrongly shaped JSON bodies every endpoint that takes JSON must refuse.
    public static let malformedBodies = [
        "", "{", "null", "[]", "42", #"{"mediaId":7}"#, #"{"userId":["a"]}"#, #"{"targetType":"post","targetId":1}"#,
    ]

    /// Sends each of `bodies` to each route of `parts` as a signed-in user and returns what was
    /// not answered 400 `MALFORMED_REQUEST` with a message (empty when every one was).
    public func malformedBodyFailures(
        _ parts: ServiceParts<ServiceRequestContext>, routes: [(HTTPRequest.Method, String)],
        bodies: [String] = malformedBodies
    ) async throws -> [String] {
        let failures = LineCollector()
        try await test(parts) { client in
            let token = try await self.token(for: "00000000-0000-4000-8000-00000000000a")
            for (method, path) in routes {
                for body in bodies {
                    let response = try await client.execute(
                        uri: path, method: method,
                        headers: [.authorization: "Bearer \(token)", .contentType: "application/json"],
                        body: ByteBuffer(string: body))
                    if response.status != .badRequest || response.error?.code != .malformedRequest
                        || response.error?.message.isEmpty != false
                    {
                        failures.append("\(method) \(path) with \(body): \(response.status) \(response.error as Any)")
                    }
                }
            }
        }
        return failures.lines
    }
}
