import Contracts
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import AuthService

/// Sign in with Apple against a local fake of Apple's servers, and account deletion.
@Suite struct AppleAndDeletionTests {
    static let bundleID = "com.example.unum"

    static func appleConfig(_ fake: FakeApple) -> [String: String] {
        [
            "auth.apple.bundleIds": "com.example.other, \(bundleID)", "auth.apple.baseUrl": fake.url,
            "auth.apple.teamId": fake.teamID, "auth.apple.keyId": fake.keyID,
            "auth.apple.privateKeyFile": fake.teamKeyFile.path,
            // The tests finish deletions themselves (`confirmAndFinish`); the application's own
            // worker must not finish one at the same moment (it would revoke Apple's token twice).
            "auth.deletionCheckSeconds": "3600",
        ]
    }

    /// Runs `body` with a fake Apple and an auth application configured for it.
    func withApple(
        clock: ManualClock = ManualClock(Date()),
        _ body: @escaping @Sendable (any TestClientProtocol, FakeApple, TestDataDirectory) async throws -> Void
    ) async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        let fake = try await FakeApple.start(directory: directory.url)
        do {
            try await withAuth(clock: clock, config: Self.appleConfig(fake), directory: directory) { client in
                try await body(client, fake, directory)
            }
        } catch {
            await fake.stop()
            throw error
        }
        await fake.stop()
    }

    /// Finishes deletions as auth's worker does, after marking every service as confirmed (the
    /// outbox deletes a delivery once its subscriber acknowledged it).
    static func confirmAndFinish(_ directory: TestDataDirectory, apple: AppleSignIn?, clock: any WallClock) async throws
    {
        let pool = try directory.authDatabasePool()
        try await pool.write { db in try db.execute(sql: "DELETE FROM kit_outbox_delivery") }
        let store = try AuthStore.beside(pool, directory: directory, clock: clock)
        await DeletionWorker(
            deletions: store.deletions, users: store.users, apple: apple, clock: clock, interval: .seconds(1),
            logger: Logger.test("t")
        )
        .finishConfirmed()
        try pool.close()
    }

    @Test func aFirstAppleSignInCreatesTheUserAndLaterOnesFindItBySub() async throws {
        // The server's clock stands still: every token is issued at its time, however long
        // a loaded machine takes to get here.
        let clock = ManualClock(Date())
        try await withApple(clock: clock) { client, fake, directory in
            let code = fake.issueCode()
            let token = try await fake.identityToken(
                sub: "001234.apple", audience: Self.bundleID, rawNonce: "n-1", email: "x7y@privaterelay.appleid.com",
                isPrivateEmail: true, issuedAt: clock.now())
            let first = try await client.post(
                "/v1/auth/apple",
                AppleSignInRequest(
                    identityToken: token, authorizationCode: code.code, nonce: "n-1", displayName: "Uma"))
            #expect(first.status == .ok, "\(first.error?.message ?? "")")
            let tokens = try first.json(TokenResponse.self)
            let profile = try await client.get("/v1/me", token: tokens.accessToken).json(UserProfile.self)
            #expect(profile.displayName == "Uma")
            #expect(profile.email == "x7y@privaterelay.appleid.com")

            let stored = try directory.authDatabase().read { db in
                try Row.fetchOne(db, sql: "SELECT * FROM apple_account")
            }
            #expect(stored?["refresh_token"] == code.refreshToken)
            #expect(stored?["is_private_email"] == true)
            #expect(stored?["client_id"] == Self.bundleID)

            // Later sign-ins (no email, no name: Apple sends them once) find the same user.
            let again = try await client.post(
                "/v1/auth/apple",
                AppleSignInRequest(
                    identityToken: try await fake.identityToken(
                        sub: "001234.apple", audience: Self.bundleID, rawNonce: "n-2", issuedAt: clock.now()),
                    nonce: "n-2"))
            let second = try again.json(TokenResponse.self)
            #expect(try await client.userID(of: second) == profile.id)
            #expect(second.sessionId != tokens.sessionId)
            #expect(fake.refusedSecrets == 0)
        }
    }

    /// Without `apple.*` settings the route still exists (a wrong method is 405, as for every
    /// route) and answers 404 saying Sign in with Apple is not set up.
    @Test func withoutAppleSettingsTheRouteSaysSo() async throws {
        try await withAuth { client in
            let response = try await client.post(
                "/v1/auth/apple", AppleSignInRequest(identityToken: "x.y.z", nonce: "n-1"))
            #expect(response.status == .notFound)
            #expect(response.error?.message == "Sign in with Apple is not set up on this server.")
            let wrongMethod = try await client.execute(uri: "/v1/auth/apple", method: .get)
            #expect(wrongMethod.status == .methodNotAllowed && wrongMethod.headers[.allow] == "POST")
        }
    }

    @Test func forgedStaleOrMismatchedAppleTokensAreRefused() async throws {
        let clock = ManualClock(Date())
        try await withApple(clock: clock) { client, fake, directory in
            let other = try await FakeApple.start(directory: directory.url.appendingPathComponent("other"))
            let sub = "000777.apple"
            let cases: [(String, String, String)] = [
                (
                    "wrong nonce",
                    try await fake.identityToken(
                        sub: sub, audience: Self.bundleID, rawNonce: "a", issuedAt: clock.now()), "b"
                ),
                (
                    "no nonce in token",
                    try await fake.identityToken(
                        sub: sub, audience: Self.bundleID, rawNonce: nil, issuedAt: clock.now()),
                    "a"
                ),
                (
                    "other app",
                    try await fake.identityToken(
                        sub: sub, audience: "com.evil.app", rawNonce: "a", issuedAt: clock.now()), "a"
                ),
                (
                    "expired",
                    try await fake.identityToken(
                        sub: sub, audience: Self.bundleID, rawNonce: "a", issuedAt: clock.now().addingTimeInterval(-900)
                    ),
                    "a"
                ),
                (
                    "issued in the future",
                    try await fake.identityToken(
                        sub: sub, audience: Self.bundleID, rawNonce: "a", issuedAt: clock.now().addingTimeInterval(300)),
                    "a"
                ),
                (
                    "wrong issuer",
                    try await fake.identityToken(
                        sub: sub, audience: Self.bundleID, rawNonce: "a", issuedAt: clock.now(), issuer: "https://evil"),
                    "a"
                ),
                (
                    "signed by someone else",
                    try await other.identityToken(
                        sub: sub, audience: Self.bundleID, rawNonce: "a", issuedAt: clock.now()), "a"
                ),
                ("garbage", "not.a.jwt", "a"),
            ]
            await other.stop()
            for (name, token, nonce) in cases {
                let response = try await client.post(
                    "/v1/auth/apple", AppleSignInRequest(identityToken: token, nonce: nonce))
                #expect(response.status == .unauthorized, "\(name)")
                #expect(response.error?.code == .invalidCredentials, "\(name)")
            }
            // A code Apple does not know is refused, and nothing is created.
            let refused = try await client.post(
                "/v1/auth/apple",
                AppleSignInRequest(
                    identityToken: try await fake.identityToken(
                        sub: sub, audience: Self.bundleID, rawNonce: "a", issuedAt: clock.now()),
                    authorizationCode: "c.unknown", nonce: "a"))
            #expect(refused.status == .badRequest)
            let accounts = try await directory.authDatabase().read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM apple_account")
            }
            #expect(accounts == 0)

            // Apple rotates its key: the next unknown kid refetches the key set.
            clock.advance(by: 61)
            try fake.rotateKey()
            let rotated = try await fake.identityToken(
                sub: sub, audience: Self.bundleID, rawNonce: "r", issuedAt: clock.now())
            #expect(
                try await client.post("/v1/auth/apple", AppleSignInRequest(identityToken: rotated, nonce: "r")).status
                    == .ok)
        }
    }

    @Test func deletingAnAppleAccountNeedsAFreshAppleTokenAndRevokesAppleAccess() async throws {
        let clock = ManualClock(Date())
        try await withApple(clock: clock) { client, fake, directory in
            let code = fake.issueCode()
            let tokens = try await client.post(
                "/v1/auth/apple",
                AppleSignInRequest(
                    identityToken: try await fake.identityToken(
                        sub: "000999.apple", audience: Self.bundleID, rawNonce: "s", issuedAt: clock.now()),
                    authorizationCode: code.code, nonce: "s")
            ).json(TokenResponse.self)

            // An Apple token from 11 minutes ago, or none, is not enough.
            clock.advance(by: 660)
            let stale = try await fake.identityToken(
                sub: "000999.apple", audience: Self.bundleID, rawNonce: "d",
                issuedAt: clock.now().addingTimeInterval(-660),
                lifetime: 3600)
            for body in [AccountDeletionRequest(appleIdentityToken: stale, nonce: "d"), AccountDeletionRequest()] {
                let response = try await client.send(.delete, "/v1/me", body, token: tokens.accessToken)
                #expect(response.error?.code == .reauthRequired)
            }
            let fresh = try await fake.identityToken(
                sub: "000999.apple", audience: Self.bundleID, rawNonce: "d", issuedAt: clock.now())
            let deleted = try await client.send(
                .delete, "/v1/me", AccountDeletionRequest(appleIdentityToken: fresh, nonce: "d"),
                token: tokens.accessToken)
            #expect(deleted.status == .accepted)

            let apple = try AppleSignIn(
                settings: AppleSettings(
                    bundleIDs: [Self.bundleID], baseURL: fake.url, teamID: fake.teamID, keyID: fake.keyID,
                    privateKeyFile: fake.teamKeyFile), clock: clock)
            try await Self.confirmAndFinish(directory, apple: apple, clock: clock)
            #expect(fake.revokedTokens == [code.refreshToken])
            let left = try await directory.authDatabase().read { db in
                try Int.fetchOne(db, sql: "SELECT (SELECT COUNT(*) FROM user) + (SELECT COUNT(*) FROM apple_account)")
            }
            #expect(left == 0)
        }
    }

    @Test func deletionNeedsThePasswordEndsEverySessionAndReportsProgress() async throws {
        let clock = ManualClock(Date())
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        try await withAuth(clock: clock, config: ["auth.deletionCheckSeconds": "3600"], directory: directory) {
            client in
            let tokens = try await client.signUp("leaving@example.com")
            let other = try await client.post(
                "/v1/auth/login", LoginRequest(email: "leaving@example.com", password: "correct horse battery")
            ).json(TokenResponse.self)
            let userID = try await client.userID(of: tokens)
            #expect(try await client.get("/v1/me/deletion", token: tokens.accessToken).status == .notFound)

            let wrong = try await client.send(
                .delete, "/v1/me", AccountDeletionRequest(password: "not my password"), token: tokens.accessToken)
            #expect(wrong.error?.code == .reauthRequired)
            #expect(try await client.get("/v1/me", token: tokens.accessToken).status == .ok)

            let accepted = try await client.send(
                .delete, "/v1/me", AccountDeletionRequest(password: "correct horse battery"), token: tokens.accessToken)
            #expect(accepted.status == .accepted)
            let started = try accepted.json(AccountDeletion.self)
            #expect(started.status == .inProgress)
            #expect(Set(started.services.map(\.service)) == [.media, .feed, .streak, .alerts, .moderation])
            #expect(started.services.allSatisfy { !$0.confirmed })

            // Every session ended; the address can no longer sign in, and is free again.
            for session in [tokens, other] {
                #expect(try await client.get("/v1/me", token: session.accessToken).status == .unauthorized)
                #expect(
                    try await client.post("/v1/auth/refresh", RefreshRequest(refreshToken: session.refreshToken)).error?
                        .code == .reauthRequired)
            }
            let signIn = try await client.post(
                "/v1/auth/login", LoginRequest(email: "leaving@example.com", password: "correct horse battery"))
            #expect(signIn.error?.code == .invalidCredentials)

            // Progress, with the token used to delete, until every service has confirmed.
            let progress = try await client.get("/v1/me/deletion", token: tokens.accessToken)
            #expect(try progress.json(AccountDeletion.self).id == started.id)
            let events = try await directory.authDatabase().read { db in
                try String.fetchAll(db, sql: "SELECT body FROM kit_outbox_event WHERE type = 'user.deleted'")
            }
            #expect(events.count == 1 && events[0].contains(userID))

            try await Self.confirmAndFinish(directory, apple: nil, clock: clock)
            let done = try await client.get("/v1/me/deletion", token: tokens.accessToken).json(AccountDeletion.self)
            #expect(done.status == .completed)
            #expect(done.services.allSatisfy { $0.confirmed })
            let rows = try await directory.authDatabase().read { db in
                try Int.fetchOne(
                    db,
                    sql: """
                        SELECT (SELECT COUNT(*) FROM user WHERE id = ?1) + (SELECT COUNT(*) FROM session WHERE user_id = ?1)
                        """, arguments: [userID])
            }
            #expect(rows == 0)
            #expect(try await client.signUp("leaving@example.com").accessToken.isEmpty == false)
        }
    }
}
