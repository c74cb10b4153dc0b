import Foundation
import HTTPTypes
import OpenAPIRuntime
import Synchronization
import Testing
import Yams

@testable import PinholeClient

/// The hand-written layer over the generated client, against a fake transport: signing,
/// single-flight refresh, retries with `Retry-After` and `Idempotency-Key`, tus resume.
struct PinholeClientTests {
    static let me = #"{"id":"u1","displayName":"Una","createdAt":"2026-11-26T08:00:00Z","roles":[]}"#
    static let quick = RetryPolicy(maxAttempts: 3, longestWait: .seconds(5), backoff: .milliseconds(1))

    func client(_ transport: FakeTransport, tokens: any TokenStore, retry: RetryPolicy = quick) -> PinholeClient {
        PinholeClient(serverURL: URL(string: "https://api.test")!, tokens: tokens, transport: transport, retry: retry)
    }

    @Test func theOperationListsMatchTheDocument() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../gateway/openapi.yaml")
        let document = try #require(try Yams.load(yaml: String(contentsOf: url, encoding: .utf8)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        var open = Set<String>()
        var keyed = Set<String>()
        for item in paths.values {
            for case let operation as [String: Any] in item.values {
                let id = try #require(operation["operationId"] as? String)
                if let security = operation["security"] as? [Any], security.isEmpty { open.insert(id) }
                let parameters = operation["parameters"] as? [[String: Any]] ?? []
                if parameters.contains(where: { ($0["$ref"] as? String)?.hasSuffix("/IdempotencyKey") == true }) {
                    keyed.insert(id)
                }
            }
        }
        #expect(AuthenticationMiddleware.publicOperations == open)
        #expect(RetryMiddleware.idempotentCreations == keyed)
    }

    @Test func fiveRefusedRequestsShareOneRefresh() async throws {
        let refreshes = Mutex(0)
        let transport = FakeTransport { sent in
            if sent.operationID == "refresh" {
                #expect(sent.request.headerFields[.authorization] == nil)
                #expect(String(decoding: sent.body ?? Data(), as: UTF8.self).contains("r1"))
                refreshes.withLock { $0 += 1 }
                try await Task.sleep(for: .milliseconds(50))  // the others arrive meanwhile
                return FakeTransport.json(.ok, FakeTransport.tokens("a2", "r2"))
            }
            return sent.request.headerFields[.authorization] == "Bearer a2"
                ? FakeTransport.json(.ok, Self.me) : FakeTransport.error(.unauthorized, "INVALID_TOKEN")
        }
        let tokens = InMemoryTokenStore(TokenPair(accessToken: "a1", refreshToken: "r1"))
        let pinhole = client(transport, tokens: tokens)
        let ids = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<5 { group.addTask { try await pinhole.api.me().ok.body.json.id } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(ids == Array(repeating: "u1", count: 5))
        #expect(refreshes.withLock { $0 } == 1)
        #expect(await tokens.load() == TokenPair(accessToken: "a2", refreshToken: "r2"))
        // A request refused later, with the token already replaced, does not refresh again.
        #expect(try await pinhole.api.me().ok.body.json.id == "u1")
        #expect(refreshes.withLock { $0 } == 1)
    }

    @Test func aRefusedRefreshSignsOutAndHandsBackThe401() async throws {
        let transport = FakeTransport { sent in
            sent.operationID == "refresh"
                ? FakeTransport.error(.unauthorized, "REAUTH_REQUIRED")
                : FakeTransport.error(.unauthorized, "INVALID_TOKEN")
        }
        let tokens = InMemoryTokenStore(TokenPair(accessToken: "a1", refreshToken: "r1"))
        let answer = try await client(transport, tokens: tokens).api.me()
        guard case .unauthorized(let refused) = answer else {
            Issue.record("expected the 401, got \(answer)")
            return
        }
        #expect(try refused.body.json.error.code.rawValue == "INVALID_TOKEN")
        #expect(await tokens.load() == nil)
        #expect(transport.sent.map(\.operationID) == ["me", "refresh"])
    }

    @Test func aCreationIsRetriedAfterRetryAfterWithOneIdempotencyKey() async throws {
        let attempts = Mutex(0)
        let transport = FakeTransport { sent in
            switch attempts.withLock({
                $0 += 1; return $0
            }) {
            case 1: throw URLError(.networkConnectionLost)  // the answer was lost
            case 2: return FakeTransport.error(.serviceUnavailable, "UPSTREAM_UNAVAILABLE", headers: [.retryAfter: "0"])
            default: return FakeTransport.error(.tooManyRequests, "RATE_LIMIT_EXCEEDED", headers: [.retryAfter: "60"])
            }
        }
        let pinhole = client(transport, tokens: InMemoryTokenStore(TokenPair(accessToken: "a", refreshToken: "r")))
        let answer = try await pinhole.api.createPost(body: .json(.init(text: "hello")))
        // The third answer asks for 60 s, longer than the policy waits: it reaches the caller.
        guard case .tooManyRequests = answer else {
            Issue.record("expected the 429, got \(answer)")
            return
        }
        let keys = transport.sent.map { $0.request.headerFields[.idempotencyKey] }
        #expect(keys.count == 3 && keys[0] != nil && Set(keys).count == 1, "\(keys)")
        #expect(Set(transport.sent.map { $0.body }).count == 1)
        #expect(transport.sent.allSatisfy { $0.request.headerFields[.authorization] == "Bearer a" })
    }

    @Test func aCallThatIsNotSafeToRepeatIsSentOnce() async throws {
        let transport = FakeTransport { _ in
            FakeTransport.error(.serviceUnavailable, "UPSTREAM_UNAVAILABLE", headers: [.retryAfter: "0"])
        }
        let pinhole = client(transport, tokens: InMemoryTokenStore(TokenPair(accessToken: "a", refreshToken: "r")))
        let answer = try await pinhole.api.logoutAll()
        guard case .serviceUnavailable = answer else {
            Issue.record("expected the 503, got \(answer)")
            return
        }
        #expect(transport.sent.count == 1)
        #expect(transport.sent[0].request.headerFields[.idempotencyKey] == nil)
    }

    @Test func retryAfterReadsSecondsAndDates() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(RetryMiddleware.retryAfter("7", now: now) == .seconds(7))
        #expect(RetryMiddleware.retryAfter("Tue, 14 Nov 2023 22:13:30 GMT", now: now) == .seconds(10))
        #expect(RetryMiddleware.retryAfter("soon", now: now) == nil)
        #expect(RetryMiddleware.retryAfter("-1", now: now) == nil)
    }

    /// A tus server in memory whose connection breaks in the middle of the second PATCH after
    /// keeping half of it; the client asks the offset and sends the rest.
    @Test func aBrokenUploadResumesFromTheServersOffset() async throws {
        let file = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let kept = Mutex(Data())
        let patches = Mutex(0)
        let transport = FakeTransport { sent in
            let tus: HTTPFields = [HTTPField.Name("Tus-Resumable")!: "1.0.0"]
            switch sent.operationID {
            case "createUpload":
                #expect(sent.request.headerFields[HTTPField.Name("Upload-Length")!] == "50000")
                let metadata = sent.request.headerFields[HTTPField.Name("Upload-Metadata")!] ?? ""
                #expect(metadata.contains("purpose \(Data("snap".utf8).base64EncodedString())"), "\(metadata)")
                var headers = tus
                headers[.location] = "/v1/uploads/up1"
                return (HTTPResponse(status: .created, headerFields: headers), nil)
            case "uploadOffset":
                var headers = tus
                headers[HTTPField.Name("Upload-Offset")!] = String(kept.withLock { $0.count })
                headers[HTTPField.Name("Upload-Length")!] = "50000"
                return (HTTPResponse(status: .ok, headerFields: headers), nil)
            case "appendUpload":
                let offset = Int(sent.request.headerFields[HTTPField.Name("Upload-Offset")!] ?? "") ?? -1
                #expect(offset == kept.withLock { $0.count })
                let body = sent.body ?? Data()
                if patches.withLock({
                    $0 += 1; return $0
                }) == 2 {
                    kept.withLock { $0.append(body.prefix(body.count / 2)) }
                    throw URLError(.networkConnectionLost)
                }
                let total = kept.withLock {
                    $0.append(body); return $0.count
                }
                var headers = tus
                headers[HTTPField.Name("Upload-Offset")!] = String(total)
                if total == 50_000 { headers[HTTPField.Name("Pinhole-Media-Id")!] = "m1" }
                return (HTTPResponse(status: .noContent, headerFields: headers), nil)
            default:
                Issue.record("unexpected \(sent.operationID)")
                return FakeTransport.error(.notFound, "NOT_FOUND")
            }
        }
        let pinhole = client(transport, tokens: InMemoryTokenStore(TokenPair(accessToken: "a", refreshToken: "r")))
        let media = try await pinhole.upload(file, contentType: "video/mp4", purpose: .snap, chunkSize: 16_384)
        #expect(media == "m1")
        #expect(kept.withLock { $0 } == file)
        #expect(transport.sent.map(\.operationID).filter { $0 == "uploadOffset" }.count == 1)
    }
}

extension PinholeClientTests {
    struct AppKilled: Error {}

    /// The caller's own error from `progress` (the app going away) ends the upload at once: it
    /// is not a failed attempt to retry.
    @Test func anErrorFromProgressEndsTheUploadWithoutARetry() async throws {
        let transport = FakeTransport { sent in
            var headers: HTTPFields = [HTTPField.Name("Tus-Resumable")!: "1.0.0"]
            headers[HTTPField.Name("Upload-Offset")!] = "10"
            return (HTTPResponse(status: .noContent, headerFields: headers), nil)
        }
        let pinhole = client(transport, tokens: InMemoryTokenStore(TokenPair(accessToken: "a", refreshToken: "r")))
        let upload = ResumableUpload(id: "up1", length: 30, offset: 0)
        await #expect(throws: AppKilled.self) {
            _ = try await pinhole.send(Data(count: 30), to: upload, chunkSize: 10) { _ in throw AppKilled() }
        }
        #expect(transport.sent.map(\.operationID) == ["appendUpload"])
    }
}

struct PinholeDatesTests {
    @Test func datesWithAndWithoutMillisecondsAreRead() throws {
        let dates = PinholeDates()
        let whole = try dates.decode("2026-11-26T08:00:00Z")
        #expect(try dates.decode("2026-11-26T08:00:00.250Z").timeIntervalSince(whole) == 0.25)
        #expect(try dates.encode(whole.addingTimeInterval(0.5)) == "2026-11-26T08:00:00.500Z")
        #expect(throws: DecodingError.self) { try dates.decode("26/11/2026") }
    }
}
