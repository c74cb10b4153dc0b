import Contracts
import Foundation
import GRDB
import HTTPTypes
import HummingbirdTesting
import TestSupport
import Testing

@testable import AuthService

@Suite struct PasswordResetTests {
    @Test func forgotAnswersTheSameForEveryAddressAndMailsOnlyAnAccount() async throws {
        try await withMail { harness in
            _ = try await harness.signUp("known@example.com")
            let known = try await harness.client.post(
                "/v1/auth/password/forgot", EmailAddressRequest(email: "Known@Example.com"))
            let unknown = try await harness.client.post(
                "/v1/auth/password/forgot", EmailAddressRequest(email: "nobody@example.com"))
            #expect(known.status == .accepted && unknown.status == .accepted)
            #expect(String(buffer: known.body) == String(buffer: unknown.body))
            #expect(Set(known.headers.map(\.name)) == Set(unknown.headers.map(\.name)))
            await harness.deliver()
            #expect(await harness.mail.to("nobody@example.com").isEmpty)
            let reset = try #require(await harness.mail.to("known@example.com").last)
            #expect(reset.subject == "Reset your Pinhole password")
            #expect(reset.linkToken != nil && reset.code == nil)
            let malformed = try await harness.client.post(
                "/v1/auth/password/forgot", EmailAddressRequest(email: "not an address"))
            #expect(malformed.status == .badRequest && malformed.error?.code == .validationFailed)
        }
    }

    @Test func aResetEndsEverySessionOnceAndTellsTheAddress() async throws {
        try await withMail { harness in
            let client = harness.client
            let phone = try await harness.signUp("reset@example.com", password: "old password 1")
            let tablet = try await client.post(
                "/v1/auth/login", LoginRequest(email: "reset@example.com", password: "old password 1")
            ).json(TokenResponse.self)
            _ = try await client.post("/v1/auth/password/forgot", EmailAddressRequest(email: "reset@example.com"))
            let token = try #require(try await harness.latest(to: "reset@example.com").linkToken)

            let weak = try await client.post(
                "/v1/auth/password/reset", PasswordResetRequest(token: token, password: "short"))
            #expect(weak.status == .badRequest && weak.error?.code == .validationFailed)
            let done = try await client.post(
                "/v1/auth/password/reset", PasswordResetRequest(token: token, password: "new password 2"))
            #expect(done.status == .noContent)

            for tokens in [phone, tablet] {
                #expect(try await client.get("/v1/me", token: tokens.accessToken).status == .unauthorized)
                let refresh = try await client.post(
                    "/v1/auth/refresh", RefreshRequest(refreshToken: tokens.refreshToken))
                #expect(refresh.error?.code == .reauthRequired)
            }
            let old = try await client.post(
                "/v1/auth/login", LoginRequest(email: "reset@example.com", password: "old password 1"))
            #expect(old.error?.code == .invalidCredentials)
            let signedIn = try await client.post(
                "/v1/auth/login", LoginRequest(email: "reset@example.com", password: "new password 2")
            ).json(TokenResponse.self)
            // The link proved the mailbox, and works once.
            #expect(try await client.me(signedIn).emailVerified)
            let again = try await client.post(
                "/v1/auth/password/reset", PasswordResetRequest(token: token, password: "third password"))
            #expect(again.error?.code == .invalidCode)
            let notice = try await harness.latest(to: "reset@example.com")
            #expect(notice.subject == "Your Pinhole password was changed")
            #expect(notice.text.contains("Every device was signed out"))
        }
    }

    @Test func aResetLinkDiesWithTheHourAndWithThePasswordItWasMadeFor() async throws {
        try await withMail { harness in
            let client = harness.client
            let tokens = try await harness.signUp("stale@example.com", password: "first password")
            _ = try await client.post("/v1/auth/password/forgot", EmailAddressRequest(email: "stale@example.com"))
            let token = try #require(try await harness.latest(to: "stale@example.com").linkToken)
            // Changed in the app meanwhile: the link was made for the old password.
            let changed = try await client.post(
                "/v1/me/password",
                PasswordChangeRequest(currentPassword: "first password", newPassword: "second password"),
                token: tokens.accessToken)
            #expect(changed.status == .noContent)
            let refused = try await client.post(
                "/v1/auth/password/reset", PasswordResetRequest(token: token, password: "third password"))
            #expect(refused.error?.code == .invalidCode)

            _ = try await client.post("/v1/auth/password/forgot", EmailAddressRequest(email: "stale@example.com"))
            let late = try #require(try await harness.latest(to: "stale@example.com").linkToken)
            harness.clock.advance(by: 3601)
            let expired = try await client.post(
                "/v1/auth/password/reset", PasswordResetRequest(token: late, password: "third password"))
            #expect(expired.error?.code == .invalidCode)
            #expect(
                try await client.post(
                    "/v1/auth/login", LoginRequest(email: "stale@example.com", password: "second password")
                ).status == .ok)
        }
    }

    @Test func theLinksPageSetsThePasswordFromAForm() async throws {
        try await withMail { harness in
            _ = try await harness.signUp("form@example.com")
            _ = try await harness.client.post(
                "/v1/auth/password/forgot", EmailAddressRequest(email: "form@example.com"))
            let token = try #require(try await harness.latest(to: "form@example.com").linkToken)
            let page = try await harness.client.get("/v1/auth/password/reset?token=\(token)")
            let html = String(buffer: page.body)
            #expect(page.status == .ok && html.contains("type=\"password\"") && html.contains("value=\"\(token)\""))
            #expect(page.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
            let short = try await harness.client.postForm(
                "/v1/auth/password/reset", [("token", token), ("password", "short")])
            #expect(short.status == .badRequest && String(buffer: short.body).contains("8 to 1024 characters"))
            let done = try await harness.client.postForm(
                "/v1/auth/password/reset", [("token", token), ("password", "from the form")])
            #expect(done.status == .ok && String(buffer: done.body).contains("Password changed"))
            #expect(
                try await harness.client.post(
                    "/v1/auth/login", LoginRequest(email: "form@example.com", password: "from the form")
                ).status == .ok)
        }
    }

    @Test func eachAddressGetsFiveMailsAnHourWhetherOrNotItHasAnAccount() async throws {
        try await withMail { harness in
            _ = try await harness.signUp("busy@example.com")
            // Registration's mail counted one of busy's five.
            for address in ["busy@example.com", "ghost@example.com"] {
                let allowed = address == "busy@example.com" ? 4 : 5
                for _ in 0..<allowed {
                    let response = try await harness.client.post(
                        "/v1/auth/password/forgot", EmailAddressRequest(email: address))
                    #expect(response.status == .accepted)
                }
                let refused = try await harness.client.post(
                    "/v1/auth/password/forgot", EmailAddressRequest(email: address))
                #expect(refused.status == .tooManyRequests && refused.error?.code == .rateLimitExceeded)
                #expect(refused.headers[.retryAfter] != nil)
            }
            await harness.deliver()
            #expect(await harness.mail.to("busy@example.com").count == 5)
            harness.clock.advance(by: 3601)
            let later = try await harness.client.post(
                "/v1/auth/password/forgot", EmailAddressRequest(email: "busy@example.com"))
            #expect(later.status == .accepted)

            // An hour on, the sweep removes the counts and the dead reset link; the day-long
            // verification link stays.
            func rows(_ table: String) throws -> Int {
                try harness.directory.authDatabase().read { db in
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? 0
                }
            }
            #expect(try rows("mail_request") == 11 && rows("email_challenge") == 2)
            await harness.housekeeping.sweep()
            #expect(try rows("mail_request") == 1)
            #expect(try rows("email_challenge") == 1)
        }
    }

    @Test func mailThatCannotLeaveWaitsAndGoesOnceTheServerIsBack() async throws {
        try await withMail { harness in
            await harness.mail.setDown(true)
            _ = try await harness.client.post(
                "/v1/auth/register", RegisterRequest(email: "patient@example.com", password: "long enough"))
            await harness.deliver()
            #expect(await harness.mail.messages.isEmpty)
            await harness.mail.setDown(false)
            // The runner's backoff: due again within a few seconds of the first failure.
            for _ in 0..<10 {
                harness.clock.advance(by: 30)
                await harness.deliver()
            }
            #expect(await harness.mail.to("patient@example.com").count == 1)
        }
    }
}
