import Contracts
import Foundation
import HummingbirdTesting
import TestSupport
import Testing

@testable import AuthService

@Suite struct EmailVerificationTests {
    @Test func registrationMailsACodeThatProvesTheAddressOnce() async throws {
        try await withMail { harness in
            let client = harness.client
            let tokens = try await client.signUp("new@example.com")
            #expect(try await client.me(tokens).emailVerified == false)
            let mail = try await harness.latest(to: "new@example.com")
            #expect(mail.subject.hasSuffix("is your Pinhole confirmation code"))
            let code = try #require(mail.code)
            #expect(mail.subject.hasPrefix(code))

            let wrong = code == "000000" ? "111111" : "000000"
            let refused = try await client.post(
                "/v1/me/email/verification/check", EmailCodeCheck(code: wrong), token: tokens.accessToken)
            #expect(refused.status == .unauthorized && refused.error?.code == .invalidCode)
            let proven = try await client.post(
                "/v1/me/email/verification/check", EmailCodeCheck(code: code), token: tokens.accessToken)
            #expect(proven.status == .ok)
            #expect(try proven.json(VerifiedEmail.self).email == "new@example.com")
            #expect(try await client.me(tokens).emailVerified)
            // One use: the same code again is refused, and a proven address gets no new one.
            let again = try await client.post(
                "/v1/me/email/verification/check", EmailCodeCheck(code: code), token: tokens.accessToken)
            #expect(again.error?.code == .invalidCode)
            let resend = try await client.post(
                "/v1/me/email/verification", EmptyBody(), token: tokens.accessToken)
            #expect(resend.status == .conflict)
        }
    }

    @Test func aCodeAllowsFiveWrongTriesThenNotEvenTheRightOne() async throws {
        try await withMail { harness in
            let tokens = try await harness.signUp("guess@example.com")
            let code = try #require(try await harness.latest(to: "guess@example.com").code)
            let wrong = code == "000000" ? "111111" : "000000"
            for _ in 0..<5 {
                let response = try await harness.client.post(
                    "/v1/me/email/verification/check", EmailCodeCheck(code: wrong), token: tokens.accessToken)
                #expect(response.error?.code == .invalidCode)
            }
            let right = try await harness.client.post(
                "/v1/me/email/verification/check", EmailCodeCheck(code: code), token: tokens.accessToken)
            #expect(right.error?.code == .invalidCode)
            #expect(try await harness.client.me(tokens).emailVerified == false)
            let badShape = try await harness.client.post(
                "/v1/me/email/verification/check", EmailCodeCheck(code: "12ab56"), token: tokens.accessToken)
            #expect(badShape.status == .badRequest && badShape.error?.code == .validationFailed)
        }
    }

    @Test func theLinkOpensAPageWhoseButtonProvesTheAddressAndExpiresInADay() async throws {
        try await withMail { harness in
            let client = harness.client
            let tokens = try await harness.signUp("link@example.com")
            // A new mail replaces the first: the first's link stops working.
            let first = try #require(try await harness.latest(to: "link@example.com").linkToken)
            let sent = try await client.post("/v1/me/email/verification", EmptyBody(), token: tokens.accessToken)
            #expect(sent.status == .accepted)
            let expiresAt = try sent.json(EmailCodeSent.self).expiresAt
            #expect(abs(expiresAt.timeIntervalSince(harness.clock.now() + 86_400)) < 0.001)
            let token = try #require(try await harness.latest(to: "link@example.com").linkToken)
            #expect(token != first)
            let stale = try await client.post("/v1/auth/email/verify", EmailLinkToken(token: first))
            #expect(stale.status == .unauthorized && stale.error?.code == .invalidCode)

            // Fetching the link (a mail scanner does) changes nothing: the page only shows a button.
            let page = try await client.get("/v1/auth/email/verify?token=\(token)")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            #expect(String(buffer: page.body).contains("value=\"\(token)\""))
            #expect(try await client.me(tokens).emailVerified == false)
            let done = try await client.postForm("/v1/auth/email/verify", [("token", token)])
            #expect(done.status == .ok && String(buffer: done.body).contains("Email address confirmed"))
            #expect(try await client.me(tokens).emailVerified)
            let twice = try await client.postForm("/v1/auth/email/verify", [("token", token)])
            #expect(twice.status == .badRequest && String(buffer: twice.body).contains("no longer works"))

            let broken = try await client.get("/v1/auth/email/verify?token=short")
            #expect(broken.status == .badRequest)

            // Another account's link, a day and a second later.
            _ = try await harness.signUp("late@example.com")
            let lateToken = try #require(try await harness.latest(to: "late@example.com").linkToken)
            harness.clock.advance(by: 86_401)
            let expired = try await client.post("/v1/auth/email/verify", EmailLinkToken(token: lateToken))
            #expect(expired.error?.code == .invalidCode)
            let late = try await client.post(
                "/v1/auth/login", LoginRequest(email: "late@example.com", password: "correct horse battery")
            ).json(TokenResponse.self)
            #expect(try await client.me(late).emailVerified == false)
        }
    }

    @Test func registeringATakenAddressAnswersAlikeAndTellsItsOwner() async throws {
        try await withMail { harness in
            let client = harness.client
            let first = try await client.post(
                "/v1/auth/register", RegisterRequest(email: "taken@example.com", password: "first password"))
            // Delivered first: two mails sent by one run may be caught in either order, and the
            // newest code is the one that counts.
            await harness.deliver()
            // While the address is unproven, registering again mails a new code.
            let again = try await client.post(
                "/v1/auth/register", RegisterRequest(email: "taken@example.com", password: "other password"))
            #expect(first.status == again.status && String(buffer: first.body) == String(buffer: again.body))
            let code = try #require(try await harness.latest(to: "taken@example.com").code)
            let tokens = try await client.post(
                "/v1/auth/login", LoginRequest(email: "taken@example.com", password: "first password")
            ).json(TokenResponse.self)
            _ = try await client.post(
                "/v1/me/email/verification/check", EmailCodeCheck(code: code), token: tokens.accessToken)
            #expect(await harness.mail.to("taken@example.com").count == 2)
            let second = try await client.post(
                "/v1/auth/register", RegisterRequest(email: "taken@example.com", password: "other password"))
            #expect(first.status == second.status)
            #expect(String(buffer: first.body) == String(buffer: second.body))
            let mails = await {
                await harness.deliver(); return await harness.mail.to("taken@example.com")
            }()
            #expect(mails.count == 3)
            // (Looked up by subject: the delivery jobs of the earlier code mails may finish after it.)
            let told = mails.first { $0.subject == "You already have a Pinhole account" }
            #expect(told != nil, "\(mails.map(\.subject))")
            // Its link sets a new password; the first password stays until then.
            #expect(told?.linkToken != nil)
            #expect(
                try await client.post(
                    "/v1/auth/login", LoginRequest(email: "taken@example.com", password: "first password")
                ).status == .ok)
        }
    }

    @Test func theMailIsMultipartWithTheHeadersReceiversExpect() async throws {
        try await withMail(config: ["mail.from": "Snap Team <hello@snap.example>", "mail.appName": "StreakSnap"]) {
            harness in
            _ = try await harness.signUp("headers@example.com")
            let mail = try await harness.latest(to: "headers@example.com")
            let wire = mail.rendered()
            #expect(wire.contains("\r\nMessage-ID: <\(mail.id)@snap.example>\r\n"))
            #expect(wire.contains("From: Snap Team <hello@snap.example>\r\n"))
            #expect(wire.contains("Content-Type: multipart/alternative; boundary="))
            #expect(wire.contains("Content-Type: text/plain; charset=utf-8"))
            #expect(wire.contains("Content-Type: text/html; charset=utf-8"))
            #expect(wire.hasPrefix("Date: \(MailMessage.dateHeader(harness.clock.now()))\r\n"))
            #expect(mail.text.contains("StreakSnap") && mail.html.contains("StreakSnap"))
            // Every body line fits SMTP's limit.
            #expect(wire.split(separator: "\r\n").allSatisfy { $0.utf8.count <= 998 })
        }
    }

    @Test func theOperatorsTemplatesReplaceTheBuiltInOnesAndEscapeHTML() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try "Welcome to {{appName}}: {{code}}".write(
            to: directory.appendingPathComponent("verify-email.subject.mustache"), atomically: true, encoding: .utf8)
        let templates = try MailTemplates(overrides: directory)
        let words = templates.render(.verifyEmail, ["appName": "A&B", "code": "123456", "link": "https://x/?a=1&b=2"])
        #expect(words.subject == "Welcome to A&B: 123456")
        #expect(words.text.contains("https://x/?a=1&b=2"))
        #expect(words.html.contains("https://x/?a=1&amp;b=2") && words.html.contains("A&amp;B"))
        try "{{#broken}".write(
            to: directory.appendingPathComponent("layout.html.mustache"), atomically: true, encoding: .utf8)
        #expect(throws: (any Error).self) { try MailTemplates(overrides: directory) }
    }

    @Test func headerDatesAndEncodedWordsFollowRFC5322() {
        #expect(MailMessage.dateHeader(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 +0000")
        #expect(MailMessage.dateHeader(Date(timeIntervalSince1970: 1_796_405_531)) == "Fri, 04 Dec 2026 17:32:11 +0000")
        #expect(MailMessage.encodedWord("plain") == "plain")
        #expect(MailMessage.encodedWord("Zoë") == "=?UTF-8?B?Wm/Dqw==?=")
        #expect(MailMessage.encodedMailbox("Zoë <z@x.example>") == "=?UTF-8?B?Wm/Dqw==?= <z@x.example>")
        #expect(AccountMail.duration(86_400) == "24 hours" && AccountMail.duration(7 * 86_400) == "7 days")
        #expect(AccountMail.duration(3600) == "1 hour" && AccountMail.duration(600) == "10 minutes")
    }
}

/// `{}`.
struct EmptyBody: Codable, Sendable {}
