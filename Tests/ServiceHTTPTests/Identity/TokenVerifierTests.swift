import Contracts
import Foundation
import JWTKit
import Synchronization
import TestSupport
import Testing

@testable import ServiceHTTP

/// A key source backed by a key directory, counting fetches; can be made to fail.
final class DirectoryKeySource: PublicKeySource {
    let directory: URL
    let fetches = Atomic<Int>(0)
    let failing = Atomic<Bool>(false)

    init(dataDirectory: URL) {
        self.directory = SigningKeyStore.defaultDirectory(dataDirectory: dataDirectory)
    }

    func fetchKeys() async throws -> JWKSDocument {
        fetches.add(1, ordering: .relaxed)
        if failing.load(ordering: .relaxed) {
            throw ServiceError(.upstreamUnavailable, "keys unavailable")
        }
        return JWKSDocument(
            keys: try SigningKeyStore.load(from: directory).map { PublicJWK(x: $0.x, y: $0.y, kid: $0.kid) })
    }
}

@Suite struct TokenVerifierTests {
    func verifier(_ source: DirectoryKeySource, clock: any WallClock = SystemClock()) -> TokenVerifier {
        TokenVerifier(
            source: source, issuer: "pinhole", audience: "pinhole-api", clock: clock, refetchInterval: 5,
            logger: Logger.test("test"))
    }

    @Test func acceptsATokenSignedByAuthsKey() async throws {
        try await withTestDataDirectory { directory in
            let tokens = try TestTokens(dataDirectory: directory.url)
            let user = try await verifier(DirectoryKeySource(dataDirectory: directory.url))
                .verify(try await tokens.signed(subject: "alice"))
            #expect(user.userID == "alice")
            #expect(user.sessionID == "session-1")
            #expect(user.scopes == ["user"])
        }
    }

    @Test func refusesEveryKindOfBadToken() async throws {
        try await withTestDataDirectory { directory in
            let tokens = try TestTokens(dataDirectory: directory.url)
            let verifier = verifier(DirectoryKeySource(dataDirectory: directory.url))
            let valid = try await tokens.signed()
            let parts = valid.split(separator: ".").map(String.init)
            let bad: [(String, String)] = [
                ("forged signature", try await tokens.forged()),
                ("alg none", tokens.unsigned()),
                ("HS256 confusion", tokens.hmacConfused()),
                ("expired", try await tokens.signed(issuedAt: Date().addingTimeInterval(-3600))),
                ("not yet valid", try await tokens.signed(notBefore: Date().addingTimeInterval(600))),
                ("wrong audience", try await tokens.signed(audience: "someone-else")),
                ("wrong issuer", try await tokens.signed(issuer: "evil")),
                ("empty", ""),
                ("two parts", parts[0] + "." + parts[1]),
                ("garbage", "not.a.token"),
                (
                    "payload swapped",
                    parts[0] + "." + Base64URL.encode(Data(#"{"sub":"mallory"}"#.utf8)) + "." + parts[2]
                ),
                ("signature stripped", parts[0] + "." + parts[1] + "."),
                (
                    "unknown kid",
                    try await TestTokens(dataDirectory: directory.url).forged().replacingOccurrences(
                        of: parts[0], with: Base64URL.encode(Data(#"{"alg":"ES256","kid":"nope"}"#.utf8)))
                ),
                ("huge", String(repeating: "a", count: 9000) + "." + parts[1] + "." + parts[2]),
            ]
            for (name, token) in bad {
                await #expect(throws: ServiceError.self, "\(name)") { try await verifier.verify(token) }
                do {
                    _ = try await verifier.verify(token)
                } catch let error as ServiceError {
                    #expect(error.code == .invalidToken, "\(name)")
                }
            }
        }
    }

    @Test func anUnknownKeyIDRefetchesTheKeysOnceSoRotationNeedsNoRestart() async throws {
        try await withTestDataDirectory { directory in
            let source = DirectoryKeySource(dataDirectory: directory.url)
            let clock = ManualClock(Date())
            let verifier = verifier(source, clock: clock)
            _ = try await verifier.verify(
                try await TestTokens(dataDirectory: directory.url).signed(issuedAt: clock.now()))
            #expect(source.fetches.load(ordering: .relaxed) == 1)

            // A new key appears (what `pinhole keys rotate` does); tokens signed with it verify.
            try SigningKeyStore.createKey(
                in: SigningKeyStore.defaultDirectory(dataDirectory: directory.url),
                clock: ManualClock(clock.now().addingTimeInterval(1)), entropy: SystemEntropy())
            clock.advance(by: 10)
            let rotated = try await TestTokens(dataDirectory: directory.url).signed(issuedAt: clock.now())
            _ = try await verifier.verify(rotated)
            #expect(source.fetches.load(ordering: .relaxed) == 2)

            // Another rotation right after that fetch: the new key is still picked up (the
            // fetch waits for the one-second gap instead of refusing the token).
            try SigningKeyStore.createKey(
                in: SigningKeyStore.defaultDirectory(dataDirectory: directory.url),
                clock: ManualClock(clock.now().addingTimeInterval(2)), entropy: SystemEntropy())
            let again = try await TestTokens(dataDirectory: directory.url).signed(issuedAt: clock.now())
            _ = try await verifier.verify(again)
            #expect(source.fetches.load(ordering: .relaxed) == 3)

            // Unknown key ids do not hammer auth: one look per kid within the refetch interval.
            let unknown = rotated.replacingOccurrences(
                of: String(rotated.split(separator: ".")[0]),
                with: Base64URL.encode(Data(#"{"alg":"ES256","kid":"unknown"}"#.utf8)))
            for _ in 0..<5 {
                await #expect(throws: ServiceError.self) { try await verifier.verify(unknown) }
            }
            #expect(source.fetches.load(ordering: .relaxed) == 4)
            clock.advance(by: 6)
            for _ in 0..<5 {
                await #expect(throws: ServiceError.self) { try await verifier.verify(unknown) }
            }
            #expect(source.fetches.load(ordering: .relaxed) == 5)
        }
    }

    @Test func aRememberedTokenStopsWorkingWhenItExpires() async throws {
        try await withTestDataDirectory { directory in
            let clock = ManualClock(Date())
            let source = DirectoryKeySource(dataDirectory: directory.url)
            let verifier = verifier(source, clock: clock)
            let token = try await TestTokens(dataDirectory: directory.url).signed(issuedAt: clock.now(), lifetime: 60)
            for _ in 0..<3 { _ = try await verifier.verify(token) }
            clock.advance(by: 60 + 31)
            await #expect(throws: ServiceError.self) { try await verifier.verify(token) }
            // A cache that only holds valid tokens can be turned off without changing answers.
            let uncached = TokenVerifier(
                source: source, issuer: "pinhole", audience: "pinhole-api", clock: clock, cacheSize: 0,
                logger: Logger.test("test"))
            let fresh = try await TestTokens(dataDirectory: directory.url).signed(issuedAt: clock.now())
            #expect(try await uncached.verify(fresh) == (try await verifier.verify(fresh)))
        }
    }

    /// Also on the tries that follow at once (a failed load must not mark the key id as looked
    /// for: every token would read as forged until the refetch interval passed), and the same
    /// token verifies once the keys are back.
    @Test func keysThatCannotBeFetchedAreAnUpstreamFailureNotABadToken() async throws {
        try await withTestDataDirectory { directory in
            let source = DirectoryKeySource(dataDirectory: directory.url)
            let verifier = verifier(source)
            let token = try await TestTokens(dataDirectory: directory.url).signed()
            source.failing.store(true, ordering: .relaxed)
            for _ in 0..<2 {
                do {
                    _ = try await verifier.verify(token)
                    Issue.record("expected a failure")
                } catch let error as ServiceError {
                    #expect(error.code == .upstreamUnavailable)
                }
            }
            source.failing.store(false, ordering: .relaxed)
            #expect(try await verifier.verify(token).userID == "user-1")
            #expect(source.fetches.load(ordering: .relaxed) == 3)
        }
    }

    // MARK: - Session state

    /// Auth's answers about sessions, changeable by the test, counting lookups.
    final class SessionTable: Sendable {
        let states = Mutex<[String: SessionState]>([:])
        let lookups = Atomic<Int>(0)
        let failing = Atomic<Bool>(false)

        var lookup: Lookup<SessionState> {
            Lookup { [self] id in
                lookups.add(1, ordering: .relaxed)
                if failing.load(ordering: .relaxed) { throw ServiceError(.upstreamUnavailable, "auth is down") }
                return states.withLock { $0[id] }
            }
        }
    }

    @Test func aTokenWorksOnlyWhileItsSessionIsLiveAndCarriesTheServerSideFlags() async throws {
        try await withTestDataDirectory { directory in
            let clock = ManualClock(Date())
            let table = SessionTable()
            table.states.withLock {
                $0["s1"] = SessionState(
                    sessionId: "s1", userId: "alice", limited: true, roles: [RoleGrant(role: .moderator)])
            }
            let verifier = TokenVerifier(
                source: DirectoryKeySource(dataDirectory: directory.url), issuer: "pinhole", audience: "pinhole-api",
                clock: clock,
                sessions: SessionStateCache(lookup: table.lookup, clock: clock, freshFor: 5, staleFor: 60),
                logger: Logger.test("test"))
            let tokens = try TestTokens(dataDirectory: directory.url)
            let token = try await tokens.signed(subject: "alice", issuedAt: clock.now(), sessionID: "s1")

            let user = try await verifier.verify(token)
            #expect(user.limited)
            #expect(user.has(.moderator))
            #expect(!user.has(.admin))
            // Within the fresh interval, one lookup serves every request.
            for _ in 0..<10 { _ = try await verifier.verify(token) }
            #expect(table.lookups.load(ordering: .relaxed) == 1)

            // Someone else's session id in a validly signed token is refused.
            let stolen = try await tokens.signed(subject: "mallory", issuedAt: clock.now(), sessionID: "s1")
            await #expect(throws: ServiceError.self) { try await verifier.verify(stolen) }

            // Logged out: refused once the answer is older than the fresh interval.
            table.states.withLock { $0["s1"] = nil }
            _ = try await verifier.verify(token)
            clock.advance(by: 6)
            await #expect(throws: ServiceError.self) { try await verifier.verify(token) }

            // Guests have no session and are not looked up.
            let before = table.lookups.load(ordering: .relaxed)
            let guest = try await tokens.signed(subject: "g", issuedAt: clock.now(), sessionID: "guest", scope: "guest")
            #expect(try await verifier.verify(guest).isGuest)
            #expect(table.lookups.load(ordering: .relaxed) == before)
        }
    }

    @Test func whenAuthIsDownARecentAnswerIsUsedThenTheFailureShows() async throws {
        try await withTestDataDirectory { directory in
            let clock = ManualClock(Date())
            let table = SessionTable()
            table.states.withLock { $0["s1"] = SessionState(sessionId: "s1", userId: "bob", limited: false, roles: []) }
            let verifier = TokenVerifier(
                source: DirectoryKeySource(dataDirectory: directory.url), issuer: "pinhole", audience: "pinhole-api",
                clock: clock,
                sessions: SessionStateCache(lookup: table.lookup, clock: clock, freshFor: 5, staleFor: 60),
                logger: Logger.test("test"))
            let token = try await TestTokens(dataDirectory: directory.url).signed(
                subject: "bob", issuedAt: clock.now(), lifetime: 900, sessionID: "s1")
            _ = try await verifier.verify(token)
            table.failing.store(true, ordering: .relaxed)
            clock.advance(by: 30)
            #expect(try await verifier.verify(token).userID == "bob")
            clock.advance(by: 31)
            do {
                _ = try await verifier.verify(token)
                Issue.record("expected a failure")
            } catch let error as ServiceError {
                #expect(error.code == .upstreamUnavailable)
            }
        }
    }
}
