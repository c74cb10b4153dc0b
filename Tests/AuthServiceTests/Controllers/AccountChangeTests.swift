import Contracts
import Foundation
import HummingbirdTesting
import ServiceHTTP
import TestSupport
import Testing

@testable import AuthService

@Suite struct AccountChangeTests {
    @Test func changingThePasswordNeedsTheCurrentOneAndEndsTheOtherSessions() async throws {
        try await withMail { harness in
            let client = harness.client
            let phone = try await harness.signUp("change@example.com", password: "first password")
            let tablet = try await client.post(
                "/v1/auth/login", LoginRequest(email: "change@example.com", password: "first password")
            ).json(TokenResponse.self)
            let wrong = try await client.post(
                "/v1/me/password",
                PasswordChangeRequest(currentPassword: "not it at all", newPassword: "second password"),
                token: phone.accessToken)
            #expect(wrong.status == .unauthorized && wrong.error?.code == .reauthRequired)
            let missing = try await client.post(
                "/v1/me/password", PasswordChangeRequest(newPassword: "second password"), token: phone.accessToken)
            #expect(missing.error?.code == .reauthRequired)

            let done = try await client.post(
                "/v1/me/password",
                PasswordChangeRequest(currentPassword: "first password", newPassword: "second password"),
                token: phone.accessToken)
            #expect(done.status == .noContent)
            #expect(try await client.get("/v1/me", token: phone.accessToken).status == .ok)
            #expect(try await client.get("/v1/me", token: tablet.accessToken).status == .unauthorized)
            let notice = try await harness.latest(to: "change@example.com")
            #expect(notice.subject == "Your Pinhole password was changed")

            // Kept on request.
            let laptop = try await client.post(
                "/v1/auth/login", LoginRequest(email: "change@example.com", password: "second password")
            ).json(TokenResponse.self)
            let kept = try await client.post(
                "/v1/me/password",
                PasswordChangeRequest(
                    currentPassword: "second password", newPassword: "third password", keepOtherSessions: true),
                token: phone.accessToken)
            #expect(kept.status == .noContent)
            #expect(try await client.get("/v1/me", token: laptop.accessToken).status == .ok)
        }
    }

    @Test func aNewAddressCountsOnceProvenAndTheOldOneCanTakeItBackForAWeek() async throws {
        try await withMail { harness in
            let client = harness.client
            let tokens = try await harness.signUp("old@example.com", password: "my password")
            let unproven = try await client.post(
                "/v1/me/email", EmailChangeRequest(email: "new@example.com", password: "wrong password"),
                token: tokens.accessToken)
            #expect(unproven.error?.code == .reauthRequired)
            let asked = try await client.post(
                "/v1/me/email", EmailChangeRequest(email: "New@Example.com", password: "my password"),
                token: tokens.accessToken)
            #expect(asked.status == .accepted)
            #expect(try asked.json(EmailCodeSent.self).email == "new@example.com")
            // Until the new address is proven, the account keeps the old one.
            #expect(try await client.me(tokens).email == "old@example.com")
            let code = try #require(try await harness.latest(to: "new@example.com").code)
            let confirmed = try await client.post(
                "/v1/me/email/confirm", EmailCodeCheck(code: code), token: tokens.accessToken)
            #expect(confirmed.status == .ok)
            let profile = try await client.me(tokens)
            #expect(profile.email == "new@example.com" && profile.emailVerified)
            #expect(
                try await client.post(
                    "/v1/auth/login", LoginRequest(email: "new@example.com", password: "my password")
                ).status == .ok)

            let told = try await harness.latest(to: "old@example.com")
            #expect(told.subject == "Your Pinhole address was changed")
            let undo = try #require(told.linkToken)
            harness.clock.advance(by: 6 * 86_400)
            let current = try await client.post("/v1/auth/refresh", RefreshRequest(refreshToken: tokens.refreshToken))
                .json(TokenResponse.self)
            let page = try await client.get("/v1/auth/email/undo?token=\(undo)")
            #expect(page.status == .ok)
            let restored = try await client.postForm("/v1/auth/email/undo", [("token", undo)])
            #expect(restored.status == .ok && String(buffer: restored.body).contains("old@example.com"))
            // Every session ends: whoever changed it is signed out.
            #expect(try await client.get("/v1/me", token: current.accessToken).status == .unauthorized)
            let refresh = try await client.post("/v1/auth/refresh", RefreshRequest(refreshToken: current.refreshToken))
            #expect(refresh.error?.code == .reauthRequired)
            let back = try await client.post(
                "/v1/auth/login", LoginRequest(email: "old@example.com", password: "my password")
            ).json(TokenResponse.self)
            #expect(try await client.me(back).email == "old@example.com")
            #expect(
                try await client.post("/v1/auth/email/undo", EmailLinkToken(token: undo)).error?.code == .invalidCode)
        }
    }

    @Test func anUndoLinkExpiresAfterAWeekAndALinkConfirmsToo() async throws {
        try await withMail { harness in
            let client = harness.client
            let tokens = try await harness.signUp("week@example.com", password: "my password")
            _ = try await client.post(
                "/v1/me/email", EmailChangeRequest(email: "moved@example.com", password: "my password"),
                token: tokens.accessToken)
            let confirm = try #require(try await harness.latest(to: "moved@example.com").linkToken)
            let confirmed = try await client.post("/v1/auth/email/confirm", EmailLinkToken(token: confirm))
            #expect(try confirmed.json(VerifiedEmail.self).email == "moved@example.com")
            let undo = try #require(try await harness.latest(to: "week@example.com").linkToken)
            harness.clock.advance(by: 7 * 86_400 + 1)
            #expect(
                try await client.post("/v1/auth/email/undo", EmailLinkToken(token: undo)).error?.code == .invalidCode)
            #expect(
                try await client.post(
                    "/v1/auth/login", LoginRequest(email: "moved@example.com", password: "my password")
                ).status == .ok)
        }
    }

    @Test func anAddressTakenMeanwhileIsRefusedAtConfirmation() async throws {
        try await withMail { harness in
            let client = harness.client
            let tokens = try await harness.signUp("mine@example.com", password: "my password")
            _ = try await client.post(
                "/v1/me/email", EmailChangeRequest(email: "wanted@example.com", password: "my password"),
                token: tokens.accessToken)
            let code = try #require(try await harness.latest(to: "wanted@example.com").code)
            _ = try await harness.signUp("wanted@example.com")
            let refused = try await client.post(
                "/v1/me/email/confirm", EmailCodeCheck(code: code), token: tokens.accessToken)
            #expect(refused.status == .conflict)
            #expect(try await client.me(tokens).email == "mine@example.com")
        }
    }

    @Test func signInCodesAreOffByDefaultAndOneUseWhenOn() async throws {
        try await withMail { harness in
            let off = try await harness.client.post("/v1/auth/email/code", EmailAddressRequest(email: "a@example.com"))
            #expect(off.status == .notFound)
        }
        try await withMail(config: ["auth.email.signInCodes": "true"]) { harness in
            let client = harness.client
            _ = try await harness.signUp("coded@example.com")
            let known = try await client.post("/v1/auth/email/code", EmailAddressRequest(email: "coded@example.com"))
            let unknown = try await client.post("/v1/auth/email/code", EmailAddressRequest(email: "nobody@example.com"))
            #expect(known.status == .accepted && String(buffer: known.body) == String(buffer: unknown.body))
            let code = try #require(try await harness.latest(to: "coded@example.com").code)
            #expect(await harness.mail.to("nobody@example.com").isEmpty)
            let stranger = try await client.post(
                "/v1/auth/email/code/verify", EmailSignInRequest(email: "nobody@example.com", code: code))
            #expect(stranger.status == .unauthorized && stranger.error?.code == .invalidCode)
            let tokens = try await client.post(
                "/v1/auth/email/code/verify", EmailSignInRequest(email: "coded@example.com", code: code)
            ).json(TokenResponse.self)
            #expect(try await client.me(tokens).emailVerified)
            let twice = try await client.post(
                "/v1/auth/email/code/verify", EmailSignInRequest(email: "coded@example.com", code: code))
            #expect(twice.error?.code == .invalidCode)
        }
    }

    @Test func anAppleAccountAddsAPasswordAndAnAddressWithAFreshAppleToken() async throws {
        let keys = try TestDataDirectory.make()
        defer { keys.remove() }
        let fake = try await FakeApple.start(directory: keys.url)
        let clock = ManualClock(Date())
        do {
            try await withMail(config: AppleAndDeletionTests.appleConfig(fake), clock: clock) { harness in
                let client = harness.client
                func fresh(_ nonce: String) async throws -> String {
                    try await fake.identityToken(
                        sub: "apple-only", audience: AppleAndDeletionTests.bundleID, rawNonce: nonce,
                        issuedAt: clock.now())
                }
                let tokens = try await client.post(
                    "/v1/auth/apple", AppleSignInRequest(identityToken: try await fresh("in"), nonce: "in")
                ).json(TokenResponse.self)
                #expect(try await client.me(tokens).email == nil)
                let unproven = try await client.post(
                    "/v1/me/password", PasswordChangeRequest(newPassword: "apple user password"),
                    token: tokens.accessToken)
                #expect(unproven.error?.code == .reauthRequired)
                let added = try await client.post(
                    "/v1/me/password",
                    PasswordChangeRequest(
                        appleIdentityToken: try await fresh("pw"), nonce: "pw", newPassword: "apple user password"),
                    token: tokens.accessToken)
                #expect(added.status == .noContent)
                let asked = try await client.post(
                    "/v1/me/email",
                    EmailChangeRequest(
                        email: "apple.user@example.com", appleIdentityToken: try await fresh("em"), nonce: "em"),
                    token: tokens.accessToken)
                #expect(asked.status == .accepted)
                let code = try #require(try await harness.latest(to: "apple.user@example.com").code)
                let confirmed = try await client.post(
                    "/v1/me/email/confirm", EmailCodeCheck(code: code), token: tokens.accessToken)
                #expect(confirmed.status == .ok)
                let profile = try await client.me(tokens)
                #expect(profile.email == "apple.user@example.com" && profile.emailVerified)
                // The account now signs in with either.
                let login = try await client.post(
                    "/v1/auth/login", LoginRequest(email: "apple.user@example.com", password: "apple user password"))
                #expect(login.status == .ok)
            }
        } catch {
            await fake.stop()
            throw error
        }
        await fake.stop()
    }
}
