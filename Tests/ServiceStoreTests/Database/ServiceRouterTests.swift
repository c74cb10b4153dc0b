import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import TestSupport
import Testing

@testable import ServiceHTTP
@testable import ServiceStore

/// A service's router as the kit builds it over a database (errors, 405, health, idempotency).
@Suite struct ServiceRouterTests {
    struct Widget: Codable, Sendable {
        var name: String
        var size: Int
    }

    /// A throw-away service over a throw-away database, with a few routes that exercise the kit.
    func withKitApp(
        clock: ManualClock = ManualClock(), held: Gate = Gate(),
        _ body: @escaping @Sendable (any TestClientProtocol, DatabasePool) async throws -> Void
    ) async throws {
        try await withTestDataDirectory { directory in
            let runtime = try ServiceRuntime(name: .feed, reader: directory.reader(), clock: clock)
            let database = try runtime.openDatabase { migrator in
                migrator.registerMigration("test.widgets") { db in
                    try db.create(table: "widget") { table in
                        table.column("name", .text).primaryKey()
                        table.column("size", .integer).notNull()
                    }
                }
            }
            let created = Counter()
            let (router, _) = runtime.makeRoutes(database: database)
            router.get("/boom") { _, _ -> Response in throw Boom(detail: "disk on fire") }
            router.get("/stopping") { _, _ -> Response in throw CancellationError() }
            router.get("/own-head") { _, _ in "the GET's own body" }
            router.head("/own-head") { _, _ in Response(status: .noContent) }
            router.get("/refused") { _, _ -> Response in
                throw ServiceError(.forbidden, "Not yours.", headers: [.retryAfter: "5"])
            }
            router.post("/plain-widgets") { request, context -> Response in
                let widget = try await request.decodeJSON(as: Widget.self, context: context)
                try await database.write { db in
                    try db.execute(
                        sql: "INSERT INTO widget (name, size) VALUES (?, ?)", arguments: [widget.name, widget.size])
                }
                return try Response.json(widget, status: .created)
            }
            router.group().add(middleware: TestUserMiddleware())
                .add(middleware: IdempotencyMiddleware(database: database, clock: clock))
                .post("/widgets") { request, context -> Response in
                    let widget = try await request.decodeJSON(as: Widget.self, context: context)
                    guard widget.size >= 0 else { throw ServiceError.validation("`size` must not be negative.") }
                    let number = created.next()
                    if widget.name == "held" { await held.pass() }
                    return try Response.json(["name": widget.name, "number": "\(number)"], status: .created)
                }
            try await Application(router: router, logger: .test("kit")).test(.router) { client in
                try await body(client, database)
            }
        }
    }

    /// Stands in for token verification: `x-test-user` names the user.
    struct TestUserMiddleware: RouterMiddleware {
        func handle(
            _ request: Request, context: ServiceRequestContext,
            next: (Request, ServiceRequestContext) async throws -> Response
        ) async throws -> Response {
            var context = context
            if let name = request.headers[HTTPField.Name("x-test-user")!] {
                context.user = AuthenticatedUser(
                    userID: name, sessionID: "s", scopes: ["user"], expiresAt: .distantFuture)
            }
            return try await next(request, context)
        }
    }

    /// Holds requests in their handler until opened.
    final class Gate: Sendable {
        private let state = Mutex<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

        /// Whether a request is held now.
        var waiting: Bool { state.withLock { !$0.waiters.isEmpty } }

        func pass() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state in
                    if !state.open { state.waiters.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }

        func open() {
            let waiters = state.withLock { state in
                state.open = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    final class Counter: Sendable {
        private let value = Atomic<Int>(0)
        func next() -> Int { value.add(1, ordering: .relaxed).newValue }
    }

    func envelope(_ response: TestResponse) throws -> ErrorEnvelope {
        try JSONCoding.decoder().decode(ErrorEnvelope.self, from: Data(response.body.readableBytesView))
    }

    @Test func everyErrorIsTheJSONEnvelopeWithTheRequestID() async throws {
        try await withKitApp { client, _ in
            do {
                let response = try await client.execute(uri: "/refused", method: .get, headers: [.requestID: "req-1"])
                #expect(response.status == .forbidden)
                #expect(response.headers[.retryAfter] == "5")
                #expect(
                    try envelope(response)
                        == ErrorEnvelope(error: .init(code: .forbidden, message: "Not yours.", requestId: "req-1")))
            }
            do {
                let response = try await client.execute(uri: "/nowhere", method: .get)
                #expect(response.status == .notFound)
                #expect(try envelope(response).error.code == .notFound)
                #expect(try envelope(response).error.requestId == response.headers[.requestID])
            }
        }
    }

    @Test func aServedPathAskedWithAnotherMethodIs405WithAllow() async throws {
        try await withKitApp { client, _ in
            for (method, path, allow) in [
                (HTTPRequest.Method.delete, "/plain-widgets", "POST"),
                (.trace, "/boom", "GET, HEAD"),
                (.put, "/health/live", "GET, HEAD"),
            ] {
                let response = try await client.execute(uri: path, method: method)
                #expect(response.status == .methodNotAllowed, "\(method) \(path)")
                #expect(response.headers[.allow] == allow, "\(method) \(path)")
                #expect(try envelope(response).error.code == .methodNotAllowed)
            }
            // A path nothing serves stays a 404, whatever the method.
            #expect(try await client.execute(uri: "/plain-widgets/1", method: .delete).status == .notFound)
            #expect(try await client.execute(uri: "/nowhere", method: .trace).headers[.allow] == nil)
        }
    }

    @Test func aHeadIsItsPathsGetWithoutABody() async throws {
        try await withKitApp { client, _ in
            let get = try await client.execute(uri: "/health/live", method: .get)
            let head = try await client.execute(uri: "/health/live", method: .head)
            #expect(get.status == .ok && head.status == .ok)
            #expect(get.body.readableBytes > 0 && head.body.readableBytes == 0)
            #expect(head.headers[.contentType] == get.headers[.contentType])
            // The GET's refusal, still without a body.
            let refused = try await client.execute(uri: "/refused", method: .head)
            #expect(refused.status == .forbidden && refused.body.readableBytes == 0)
            // A route that answers HEAD itself keeps it; a path without GET stays a 405.
            #expect(try await client.execute(uri: "/own-head", method: .head).status == .noContent)
            let post = try await client.execute(uri: "/plain-widgets", method: .head)
            #expect(post.status == .methodNotAllowed && post.headers[.allow] == "POST")
            #expect(try await client.execute(uri: "/nowhere", method: .head).status == .notFound)
        }
    }

    @Test func routePatternsMatchSegmentBySegment() {
        let table = RouteMethodTable {
            [(.get, "/v1/posts/:id"), (.delete, "/v1/posts/:id"), (.put, "/v1/posts/:id/vote"), (.get, "/**")]
        }
        #expect(table.methods(for: "/v1/posts/abc") == "DELETE, GET, HEAD")
        #expect(table.methods(for: "/v1/posts/abc/vote") == "PUT")
        #expect(table.methods(for: "/v1/posts") == "")
        #expect(table.methods(for: "/v1/posts/abc/vote/x") == "")
        // A literal segment wins over a parameter in its place, as in the router.
        let literal = RouteMethodTable { [(.get, "/v1/messages/unread-count"), (.delete, "/v1/messages/:id")] }
        #expect(literal.methods(for: "/v1/messages/unread-count") == "GET, HEAD")
        #expect(literal.methods(for: "/v1/messages/abc") == "DELETE")
    }

    @Test func unexpectedFailuresAre500WithoutDetails() async throws {
        try await withKitApp { client, _ in
            do {
                let response = try await client.execute(uri: "/boom", method: .get)
                #expect(response.status == .internalServerError)
                let body = try envelope(response)
                #expect(body.error.code == .internalError)
                #expect(!body.error.message.contains("disk"))
            }
            // A handler cancelled as the server stops is not a failure: 503, try again.
            do {
                let response = try await client.execute(uri: "/stopping", method: .get)
                #expect(response.status == .serviceUnavailable)
                #expect(try envelope(response).error.code == .serviceUnavailable)
                #expect(response.headers[.retryAfter] == "1")
            }
        }
    }

    struct Boom: Error {
        var detail: String
    }

    @Test func badBodiesAre400sThatNameTheField() async throws {
        try await withKitApp { client, database in
            let cases: [(String, String)] = [
                ("", "The request needs a JSON body."),
                ("{", "The body is not valid JSON."),
                (#"{"name":"a"}"#, "Missing field `size`."),
                (#"{"name":"a","size":"big"}"#, "Field `size` has the wrong type."),
                (#"{"name":null,"size":1}"#, "Field `name` must not be null."),
            ]
            for (body, message) in cases {
                do {
                    let response = try await client.execute(
                        uri: "/plain-widgets", method: .post, body: ByteBuffer(string: body))
                    #expect(response.status == .badRequest)
                    #expect(
                        try envelope(response).error
                            == .init(code: .malformedRequest, message: message, requestId: response.headers[.requestID])
                    )
                }
            }
            let count = try await database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM widget") }
            #expect(count == 0)
        }
    }

    @Test func aUniqueConstraintIsA409() async throws {
        try await withKitApp { client, _ in
            let body = ByteBuffer(string: #"{"name":"a","size":1}"#)
            #expect(try await client.execute(uri: "/plain-widgets", method: .post, body: body).status == .created)
            do {
                let response = try await client.execute(uri: "/plain-widgets", method: .post, body: body)
                #expect(response.status == .conflict)
                #expect(try envelope(response).error.code == .conflict)
            }
        }
    }

    @Test func healthAndMetricsAnswer() async throws {
        try await withKitApp { client, _ in
            #expect(try await client.execute(uri: "/health/live", method: .get).status == .ok)
            do {
                let response = try await client.execute(uri: "/health/ready", method: .get)
                #expect(response.status == .ok)
                let report = try JSONCoding.decoder().decode(
                    HealthReport.self, from: Data(response.body.readableBytesView))
                #expect(report.checks == ["database": .ok])
            }
            do {
                let response = try await client.execute(uri: "/metrics", method: .get)
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("text/plain") == true)
                // The data directory's file system, for the disk alert.
                let text = String(buffer: response.body)
                for name in ["pinhole_data_free_bytes", "pinhole_data_size_bytes"] {
                    let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
                    let value = line.flatMap { Double($0.split(separator: " ").last ?? "") }
                    #expect(value.map { $0 > 0 } == true, "\(name) in \(text)")
                }
            }
        }
    }

    // MARK: - Idempotency

    @Test func aRepeatedKeyWithTheSameBodyReplaysTheFirstAnswer() async throws {
        try await withKitApp { client, _ in
            let body = ByteBuffer(string: #"{"name":"a","size":1}"#)
            var first = ""
            do {
                let response = try await client.execute(
                    uri: "/widgets", method: .post, headers: [.idempotencyKey: "k1"], body: body)
                #expect(response.status == .created)
                first = String(buffer: response.body)
            }
            do {
                let response = try await client.execute(
                    uri: "/widgets", method: .post, headers: [.idempotencyKey: "k1"], body: body)
                #expect(response.status == .created)
                #expect(String(buffer: response.body) == first)
                #expect(response.headers[.idempotentReplayed] == "true")
                #expect(response.headers[.contentType] == "application/json; charset=utf-8")
            }
            do {
                let response = try await client.execute(
                    uri: "/widgets", method: .post, headers: [.idempotencyKey: "k2"], body: body)
                #expect(String(buffer: response.body).contains(#""number":"2""#))
            }
        }
    }

    @Test func theSameKeyWithADifferentBodyIsRefused() async throws {
        try await withKitApp { client, _ in
            let alice: HTTPFields = [.idempotencyKey: "k", HTTPField.Name("x-test-user")!: "alice"]
            #expect(
                try await client.execute(
                    uri: "/widgets", method: .post, headers: alice, body: ByteBuffer(string: #"{"name":"a","size":1}"#)
                ).status == .created)
            // Another user's identical key is theirs alone.
            let bob: HTTPFields = [.idempotencyKey: "k", HTTPField.Name("x-test-user")!: "bob"]
            let bobs = try await client.execute(
                uri: "/widgets", method: .post, headers: bob, body: ByteBuffer(string: #"{"name":"a","size":1}"#))
            #expect(bobs.status == .created)
            #expect(bobs.headers[.idempotentReplayed] == nil)
            do {
                let response = try await client.execute(
                    uri: "/widgets", method: .post, headers: alice, body: ByteBuffer(string: #"{"name":"b","size":1}"#))
                #expect(response.status == .unprocessableContent)
                #expect(try envelope(response).error.code == .idempotencyKeyReused)
            }
        }
    }

    @Test func aFailedRequestReleasesItsKeyAndKeysExpireAfterADay() async throws {
        let clock = ManualClock()
        try await withKitApp(clock: clock) { client, _ in
            #expect(
                try await client.execute(
                    uri: "/widgets", method: .post, headers: [.idempotencyKey: "k"],
                    body: ByteBuffer(string: #"{"name":"a","size":-1}"#)
                ).status == .badRequest)
            // Corrected body, same key: accepted because the failure released the key.
            #expect(
                try await client.execute(
                    uri: "/widgets", method: .post, headers: [.idempotencyKey: "k"],
                    body: ByteBuffer(string: #"{"name":"a","size":1}"#)
                ).status == .created)
            clock.advance(by: 86_401)
            do {
                let response = try await client.execute(
                    uri: "/widgets", method: .post, headers: [.idempotencyKey: "k"],
                    body: ByteBuffer(string: #"{"name":"b","size":1}"#))
                #expect(response.status == .created)
                #expect(response.headers[.idempotentReplayed] == nil)
            }
        }
    }

    @Test func aConcurrentRepeatIsToldTheFirstIsInProgress() async throws {
        let gate = Gate()
        try await withKitApp(held: gate) { client, _ in
            let body = ByteBuffer(string: #"{"name":"held","size":1}"#)
            async let first = client.execute(
                uri: "/widgets", method: .post, headers: [.idempotencyKey: "k"], body: body)
            // The first is inside its handler, holding the key, until the gate opens (at the
            // latest after 10 s: a second request wrongly let in would wait there too).
            #expect(await eventually { gate.waiting })
            let deadline = Task {
                try? await Task.sleep(for: .seconds(10))
                gate.open()
            }
            defer { deadline.cancel() }
            do {
                let response = try await client.execute(
                    uri: "/widgets", method: .post, headers: [.idempotencyKey: "k"], body: body)
                #expect(response.status == .conflict)
                #expect(try envelope(response).error.code == .idempotencyKeyInProgress)
            }
            gate.open()
            #expect(try await first.status == .created)
        }
    }

    @Test func malformedKeysAreRefused() async throws {
        try await withKitApp { client, _ in
            for key in ["", String(repeating: "k", count: 256), "has space"] {
                do {
                    let response = try await client.execute(
                        uri: "/widgets", method: .post, headers: [.idempotencyKey: key],
                        body: ByteBuffer(string: #"{"name":"a","size":1}"#))
                    #expect(response.status == .badRequest)
                    #expect(try envelope(response).error.code == .invalidIdempotencyKey)
                }
            }
        }
    }
}
