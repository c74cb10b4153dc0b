import AsyncHTTPClient
import Foundation
import NIOHTTP1
import ServiceHTTP
import TestSupport
import Testing

/// The account mails through the real stack and a real SMTP server (aiosmtpd, STARTTLS and
/// AUTH): register and verify by the mailed code, forget the password while the mail server is
/// down (the link arrives once it is back, once), reset it through the link's page, see every
/// old session refused, change the address and take it back from the old one. Mail is read
/// with `pinhole mail`, pointed at the server's folder.
struct MailFlow {
    let stack: Stack
    let smtp: SMTPServer

    /// What auth needs to send through `smtp`.
    static func environment(_ smtp: SMTPServer, directory: TestDataDirectory) -> [String: String] {
        [
            "MAIL_SMTP_SERVER": "localhost:\(smtp.port)", "MAIL_SMTP_SECURITY": "starttls",
            "MAIL_SMTP_USERNAME": SMTPServer.user, "MAIL_SMTP_PASSWORD": SMTPServer.password,
            "MAIL_SMTP_CA_FILE": SMTPServer.authority(of: directory), "MAIL_APP_NAME": "StreakSnap",
            "MAIL_FROM": "StreakSnap <no-reply@streaksnap.example>",
        ]
    }

    func call(
        _ method: NIOHTTP1.HTTPMethod, _ path: String, token: String? = nil, json: (any Encodable)? = nil,
        headers: [(String, String)] = []
    ) async throws -> FullResponse {
        try await stack.client.call(method, stack.url(path), token: token, json: json, headers: headers)
    }

    /// The newest message to `address` as `pinhole mail show` prints it, once `count` messages
    /// have reached it.
    func mail(to address: String, count: Int) async throws -> [String] {
        let arrived = await eventually(timeout: .seconds(30), every: .milliseconds(200)) {
            (try? smtp.received().filter { $0.hasPrefix("X-Envelope-To: \(address)\r\n") }.count) ?? 0 >= count
        }
        guard arrived else { throw StackError("\(count) mails to \(address) did not arrive") }
        let all = try smtp.received()
        let number = try #require(all.lastIndex { $0.hasPrefix("X-Envelope-To: \(address)\r\n") }) + 1
        let shown = try await stack.pinhole(["mail", "show", String(number), "--mailbox", smtp.maildir.path])
        #expect(shown.status == 0, "\(shown.lines)")
        return shown.lines
    }

    /// The six-digit code a printed mail carries.
    static func code(in lines: [String]) -> String? {
        lines.lazy.compactMap { $0.firstMatch(of: /Your code: (\d{6})/).map { String($0.1) } }.first
    }

    /// The token of the link a printed mail carries.
    static func linkToken(in lines: [String]) -> String? {
        lines.lazy.compactMap { $0.firstMatch(of: /token=([A-Za-z0-9_-]{43})/).map { String($0.1) } }.first
    }

    func run() async throws {
        // Register: the verification code arrives over SMTP; the code proves the address.
        let password = "correct horse battery"
        _ = try await call(
            .POST, "/v1/auth/register", json: RegisterRequest(email: "mia@example.com", password: password))
        let first = try await call(
            .POST, "/v1/auth/login", json: LoginRequest(email: "mia@example.com", password: password)
        )
        .decode(TokenResponse.self)
        let welcome = try await mail(to: "mia@example.com", count: 1)
        #expect(welcome.contains { $0.hasPrefix("From: StreakSnap <no-reply@streaksnap.example>") })
        let code = try #require(Self.code(in: welcome))
        let verified = try await call(
            .POST, "/v1/me/email/verification/check", token: first.accessToken, json: EmailCodeCheck(code: code)
        )
        #expect(verified.status == 200)
        #expect(try await call(.GET, "/v1/me", token: first.accessToken).decode(UserProfile.self).emailVerified)
        let second = try await call(
            .POST, "/v1/auth/login", json: LoginRequest(email: "mia@example.com", password: password)
        )
        .decode(TokenResponse.self)

        // Forgot, with the mail server down: the answer does not wait for it, and the link
        // arrives once it is back, once.
        await smtp.pause()
        let forgot = try await call(
            .POST, "/v1/auth/password/forgot", json: EmailAddressRequest(email: "mia@example.com"))
        #expect(forgot.status == 202)
        try await Task.sleep(for: .seconds(3))
        try await smtp.resume()
        let reset = try await mail(to: "mia@example.com", count: 2)
        #expect(reset.contains { $0 == "Subject: Reset your StreakSnap password" }, "\(reset)")
        let token = try #require(Self.linkToken(in: reset))
        try await Task.sleep(for: .seconds(2))
        #expect(try smtp.received().filter { $0.contains("Reset your StreakSnap password") }.count == 1)

        // The link's page, through the gateway, and its form.
        let page = try await call(.GET, "/v1/auth/password/reset?token=\(token)")
        #expect(page.status == 200 && page.text.contains("name=\"password\""))
        let form = try await stack.client.call(
            .POST, stack.url("/v1/auth/password/reset"),
            bytes: Data("token=\(token)&password=a+brand+new+password".utf8),
            headers: [("content-type", "application/x-www-form-urlencoded")])
        #expect(form.status == 200 && form.text.contains("Password changed"), "\(form.status) \(form.text)")

        // Every old session is refused, at auth and through the other services.
        for old in [first, second] {
            #expect(try await call(.GET, "/v1/me", token: old.accessToken).status == 401)
            let refresh = try await call(
                .POST, "/v1/auth/refresh", json: RefreshRequest(refreshToken: old.refreshToken))
            #expect(refresh.status == 401)
        }
        let refusedElsewhere = await eventually(timeout: .seconds(10), every: .milliseconds(250)) {
            (try? await call(.GET, "/v1/notifications", token: first.accessToken))?.status == 401
        }
        #expect(refusedElsewhere)
        let signedIn = try await call(
            .POST, "/v1/auth/login", json: LoginRequest(email: "mia@example.com", password: "a brand new password")
        ).decode(TokenResponse.self)
        let notice = try await mail(to: "mia@example.com", count: 3)
        #expect(notice.contains { $0 == "Subject: Your StreakSnap password was changed" }, "\(notice)")

        // A new address, proven by its code; the old one is told and takes it back.
        let asked = try await call(
            .POST, "/v1/me/email", token: signedIn.accessToken,
            json: EmailChangeRequest(email: "mia.new@example.com", password: "a brand new password"))
        #expect(asked.status == 202)
        let confirm = try await mail(to: "mia.new@example.com", count: 1)
        let newCode = try #require(Self.code(in: confirm))
        let changed = try await call(
            .POST, "/v1/me/email/confirm", token: signedIn.accessToken, json: EmailCodeCheck(code: newCode))
        #expect(changed.status == 200)
        #expect(
            try await call(.GET, "/v1/me", token: signedIn.accessToken).decode(UserProfile.self).email
                == "mia.new@example.com")
        let told = try await mail(to: "mia@example.com", count: 4)
        let undo = try #require(Self.linkToken(in: told))
        let restored = try await call(.POST, "/v1/auth/email/undo", json: EmailLinkToken(token: undo))
        #expect(restored.status == 200)
        #expect(try await call(.GET, "/v1/me", token: signedIn.accessToken).status == 401)
        let back = try await call(
            .POST, "/v1/auth/login", json: LoginRequest(email: "mia@example.com", password: "a brand new password"))
        #expect(back.status == 200)

        // `pinhole mail list` numbers what arrived.
        let listed = try await stack.pinhole(["mail", "list", "--mailbox", smtp.maildir.path])
        #expect(listed.lines.count == (try smtp.received().count), "\(listed.lines)")
    }
}
