import Foundation
import Hummingbird
import HummingbirdTesting
import JWTKit
import TestSupport
import Testing

@testable import AuthService
@testable import ServiceHTTP

@Suite struct SessionTests {
    @Test func unknownAddressAndWrongPasswordLookTheSameIncludingTime() async throws {
        try await withAuth { client in
            _ = try await client.post(
                "/v1/auth/register", RegisterRequest(email: "known@example.com", password: "long enough"))
            func attempt(_ email: String) async throws -> (TestResponse, Duration) {
                let start = ContinuousClock.now
                let response = try await client.post(
                    "/v1/auth/login", LoginRequest(email: email, password: "wrong password"))
                return (response, ContinuousClock.now - start)
            }
            var known: [Duration] = []
            var unknown: [Duration] = []
            for index in 0..<9 {
                let (a, timeA) = try await attempt("known@example.com")
                let (b, timeB) = try await attempt("nobody\(index)@example.com")
                #expect(a.status == .unauthorized && b.status == .unauthorized)
                #expect(a.error?.code == .invalidCredentials && b.error?.code == .invalidCredentials)
                #expect(a.error?.message == b.error?.message)
                known.append(timeA)
                unknown.append(timeB)
            }
            // Both paths run one Argon2id verification: their fastest times stay within a factor
            // of four (skipping the hash for unknown addresses would make them differ about
            // fifty-fold). The fastest, not the median: other tests running at the same time only
            // ever add time, and a median of nine can catch several slowed attempts on one side.
            // A factor of two failed once on a loaded two-core CI run (0.47) with the hash in
            // place on both paths; the measured comparison is `./scripts/bench-duress`'s kind of
            // job, this test only catches the hash being skipped.
            let ratio = known.min()! / unknown.min()!
            #expect(ratio > 0.25 && ratio < 4.0, "known/unknown fastest time ratio \(ratio)")
        }
    }

    @Test func theAccessTokenIsAnES256JWTForFifteenMinutesVerifiableWithTheJWKS() async throws {
        try await withAuth { client in
            let tokens = try await client.signUp("jwt@example.com")
            #expect(tokens.tokenType == "Bearer")
            #expect(tokens.expiresIn == 900)
            #expect(tokens.refreshExpiresIn == 30 * 86_400)
            let jwks = try await client.get("/.well-known/jwks.json").json(JWKSDocument.self)
            let key = try #require(jwks.keys.first)
            #expect(key.kty == "EC" && key.crv == "P-256" && key.alg == "ES256")
            #expect(!String(data: try JSONEncoder().encode(jwks), encoding: .utf8)!.contains("\"d\""))

            let keys = JWTKeyCollection()
            await keys.add(ecdsa: try ES256PublicKey(parameters: (key.x, key.y)), kid: JWKIdentifier(string: key.kid))
            let claims = try await keys.verify(tokens.accessToken, as: AccessClaims.self)
            #expect(claims.iss.value == "pinhole")
            #expect(claims.aud.value == ["pinhole-api"])
            #expect(claims.exp.value.timeIntervalSince(claims.iat.value) == 900)
            #expect(claims.sid == tokens.sessionId)
        }
    }

    @Test func meNeedsAValidTokenAndShowsTheProfile() async throws {
        try await withAuth { client in
            let tokens = try await client.signUp("me@example.com")
            let me = try await client.get("/v1/me", token: tokens.accessToken)
            #expect(me.status == .ok)
            let profile = try me.json(UserProfile.self)
            #expect(profile.email == "me@example.com")
            #expect(profile.displayName == "me")
            #expect(try await client.get("/v1/me").error?.code == .authenticationRequired)
            #expect(try await client.get("/v1/me", token: "nonsense").error?.code == .invalidToken)
        }
    }

    @Test func refreshRotatesAndReuseOfASpentTokenAfterTheGraceWindowEndsTheSession() async throws {
        let clock = ManualClock(Date())
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        try await withAuth(clock: clock, directory: directory) { client in
            let first = try await client.signUp("rotate@example.com")
            let second = try await client.post("/v1/auth/refresh", RefreshRequest(refreshToken: first.refreshToken))
            #expect(second.status == .ok)
            let rotated = try second.json(TokenResponse.self)
            #expect(rotated.refreshToken != first.refreshToken)
            #expect(rotated.sessionId == first.sessionId)
            #expect(try await client.get("/v1/me", token: rotated.accessToken).status == .ok)

            // The answer was lost: the same parent within 10 s gets the very same child back.
            clock.advance(by: 9)
            let retry = try await client.post("/v1/auth/refresh", RefreshRequest(refreshToken: first.refreshToken))
            #expect(retry.status == .ok)
            #expect(try retry.json(TokenResponse.self).refreshToken == rotated.refreshToken)

            // Past the grace window the spent token means someone else has it: the family ends.
            clock.advance(by: 2)
            let reuse = try await client.post("/v1/auth/refresh", RefreshRequest(refreshToken: first.refreshToken))
            #expect(reuse.status == .unauthorized)
            #expect(reuse.error?.code == .reauthRequired)
            let afterReuse = try await client.post(
                "/v1/auth/refresh", RefreshRequest(refreshToken: rotated.refreshToken))
            #expect(afterReuse.error?.code == .reauthRequired)
            #expect(try await client.get("/v1/me", token: rotated.accessToken).status == .unauthorized)
            #expect(try Self.endedSessions(in: directory).map(\.reason) == [.refreshTokenReused])
            #expect(try Self.endedSessions(in: directory).first?.sessionIds == [first.sessionId])
        }
    }

    @Test func aParentWhoseChildWasAlreadyUsedIsReuseEvenInsideTheGraceWindow() async throws {
        try await withAuth { client in
            let first = try await client.signUp("branch@example.com")
            let child = try await client.post("/v1/auth/refresh", RefreshRequest(refreshToken: first.refreshToken))
                .json(TokenResponse.self)
            let grandchild = try await client.post("/v1/auth/refresh", RefreshRequest(refreshToken: child.refreshToken))
            #expect(grandchild.status == .ok)
            // The child moved on, so the parent cannot be a lost answer: two branches would live.
            let stale = try await client.post("/v1/auth/refresh", RefreshRequest(refreshToken: first.refreshToken))
            #expect(stale.error?.code == .reauthRequired)
            let next = try grandchild.json(TokenResponse.self)
            #expect(
                try await client.post("/v1/auth/refresh", RefreshRequest(refreshToken: next.refreshToken)).error?.code
                    == .reauthRequired)
        }
    }

    @Test func fiftyConcurrentRefreshesOfOneTokenYieldOneChildAndNoSecondBranch() async throws {
        try await withAuth { client in
            let first = try await client.signUp("race@example.com")
            let children = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        let response = try await client.post(
                            "/v1/auth/refresh", RefreshRequest(refreshToken: first.refreshToken))
                        return response.status == .ok ? try response.json(TokenResponse.self).refreshToken : nil
                    }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(children.count == 50)
            #expect(children.allSatisfy { $0 != nil }, "every retry inside the grace window succeeds")
            let distinct = Set(children.compactMap { $0 })
            #expect(distinct.count == 1)
            // The one child works, and the session has exactly one live refresh token.
            let child = try #require(distinct.first)
            #expect(
                try await client.post("/v1/auth/refresh", RefreshRequest(refreshToken: child)).status == .ok)
        }
    }

    @Test func refreshTokensExpire() async throws {
        let clock = ManualClock(Date())
        try await withAuth(clock: clock) { client in
            let tokens = try await client.signUp("expire@example.com")
            clock.advance(by: 30 * 86_400 + 1)
            let response = try await client.post("/v1/auth/refresh", RefreshRequest(refreshToken: tokens.refreshToken))
            #expect(response.error?.code == .reauthRequired)
            for junk in ["", "x", String(repeating: "y", count: 300)] {
                #expect(
                    try await client.post("/v1/auth/refresh", RefreshRequest(refreshToken: junk)).error?.code
                        == .reauthRequired)
            }
        }
    }

    /// The `session.ended` events auth's outbox holds, oldest first.
    static func endedSessions(in directory: TestDataDirectory) throws -> [SessionEnded] {
        try directory.authDatabase().read { db in
            try Data.fetchAll(
                db, sql: "SELECT body FROM kit_outbox_event WHERE type = 'session.ended' ORDER BY seq"
            ).map { try JSONCoding.decoder().decode(EventEnvelope<SessionEnded>.self, from: $0).payload }
        }
    }

    @Test func logoutEndsTheSessionAtOnce() async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        try await withAuth(directory: directory) { client in
            let tokens = try await client.signUp("bye@example.com")
            let other = try await client.post(
                "/v1/auth/login", LoginRequest(email: "bye@example.com", password: "correct horse battery")
            )
            .json(TokenResponse.self)
            let logout = try await client.execute(
                uri: "/v1/auth/logout", method: .post, headers: [.authorization: "Bearer \(tokens.accessToken)"])
            #expect(logout.status == .noContent)
            #expect(try await client.get("/v1/me", token: tokens.accessToken).error?.code == .invalidToken)
            #expect(
                try await client.post("/v1/auth/refresh", RefreshRequest(refreshToken: tokens.refreshToken)).error?.code
                    == .reauthRequired)
            // Other devices stay signed in.
            #expect(try await client.get("/v1/me", token: other.accessToken).status == .ok)
            // Alerts hears of it (the session's push devices go), once.
            let me = try await client.get("/v1/me", token: other.accessToken).json(UserProfile.self)
            #expect(
                try Self.endedSessions(in: directory) == [
                    SessionEnded(userId: me.id, sessionIds: [tokens.sessionId], reason: .logout)
                ])
        }
    }

    @Test func oneSessionCanBeEndedFromAnotherAndLogoutAllEndsEveryOne() async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        try await withAuth(directory: directory) { client in
            let phone = try await client.signUp("many@example.com")
            let tablet = try await client.post(
                "/v1/auth/login", LoginRequest(email: "many@example.com", password: "correct horse battery")
            ).json(TokenResponse.self)
            let laptop = try await client.post(
                "/v1/auth/login", LoginRequest(email: "many@example.com", password: "correct horse battery")
            ).json(TokenResponse.self)
            let stranger = try await client.signUp("stranger@example.com")

            // Someone else's session is a 404, and stays live.
            let foreign = try await client.execute(
                uri: "/v1/auth/sessions/\(phone.sessionId)", method: .delete,
                headers: [.authorization: "Bearer \(stranger.accessToken)"])
            #expect(foreign.status == .notFound)
            #expect(try await client.get("/v1/me", token: phone.accessToken).status == .ok)

            // The laptop ends the lost phone's session.
            let end = try await client.execute(
                uri: "/v1/auth/sessions/\(phone.sessionId)", method: .delete,
                headers: [.authorization: "Bearer \(laptop.accessToken)"])
            #expect(end.status == .noContent)
            #expect(try await client.get("/v1/me", token: phone.accessToken).status == .unauthorized)
            #expect(try await client.get("/v1/me", token: tablet.accessToken).status == .ok)

            let all = try await client.execute(
                uri: "/v1/auth/logout-all", method: .post, headers: [.authorization: "Bearer \(laptop.accessToken)"])
            #expect(all.status == .noContent)
            for tokens in [tablet, laptop] {
                #expect(try await client.get("/v1/me", token: tokens.accessToken).error?.code == .invalidToken)
                #expect(
                    try await client.post("/v1/auth/refresh", RefreshRequest(refreshToken: tokens.refreshToken))
                        .error?.code == .reauthRequired)
            }
            #expect(try await client.get("/v1/me", token: stranger.accessToken).status == .ok)
            let ended = try Self.endedSessions(in: directory)
            #expect(ended.map(\.reason) == [.revoked, .logoutAll])
            #expect(ended.first?.sessionIds == [phone.sessionId])
            #expect(Set(ended.last?.sessionIds ?? []) == [tablet.sessionId, laptop.sessionId])
        }
    }

    @Test func sessionsAreListedNewestFirstInPages() async throws {
        let clock = ManualClock(Date())
        try await withAuth(clock: clock) { client in
            var sessions: [TokenResponse] = []
            _ = try await client.post(
                "/v1/auth/register", RegisterRequest(email: "many@example.com", password: "long enough"))
            for platform in ["ios", "android", "web"] {
                clock.advance(by: 60)
                let response = try await client.post(
                    "/v1/auth/login",
                    LoginRequest(
                        email: "many@example.com", password: "long enough",
                        device: DeviceInfo(platform: platform, version: "1.0")))
                sessions.append(try response.json(TokenResponse.self))
            }
            let token = sessions[2].accessToken
            let first = try await client.get("/v1/auth/sessions?limit=2", token: token).json(Page<SessionSummary>.self)
            #expect(first.items.map(\.id) == [sessions[2].sessionId, sessions[1].sessionId])
            #expect(first.items.map(\.current) == [true, false])
            #expect(first.items.first?.device == DeviceInfo(platform: "web", version: "1.0"))
            let cursor = try #require(first.nextCursor)
            let second = try await client.get("/v1/auth/sessions?limit=2&cursor=\(cursor)", token: token).json(
                Page<SessionSummary>.self)
            #expect(second.items.map(\.id) == [sessions[0].sessionId])
            #expect(second.nextCursor == nil)
            #expect(try await client.get("/v1/auth/sessions?cursor=broken", token: token).error?.code == .invalidCursor)
            #expect(try await client.get("/v1/auth/sessions?limit=500", token: token).error?.code == .validationFailed)
        }
    }
}
