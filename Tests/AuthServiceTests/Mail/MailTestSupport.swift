import Contracts
import Foundation
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import TestSupport

@testable import AuthService

/// A transport that keeps what auth sends, and can be "down".
actor CaughtMail: MailTransport {
    private(set) var messages: [MailMessage] = []
    private var down = false

    func send(_ message: MailMessage) async throws {
        if down { throw SMTPError("the test's mail server is down") }
        messages.append(message)
    }

    func setDown(_ value: Bool) { down = value }

    func to(_ address: String) -> [MailMessage] { messages.filter { $0.to == address } }
}

/// An in-process auth whose mail is caught; `deliver` runs the due mail jobs as auth's runner
/// does (the request's job, then the message's).
struct MailHarness: Sendable {
    let client: any TestClientProtocol
    let mail: CaughtMail
    let runner: JobRunner
    let housekeeping: MailHousekeeping
    let clock: ManualClock
    let directory: TestDataDirectory

    func deliver() async {
        for _ in 0..<3 { await runner.runDue() }
    }

    /// The newest mail to `address` after delivering what is due.
    func latest(to address: String) async throws -> MailMessage {
        await deliver()
        guard let message = await mail.to(address).last else { throw MailTestError("no mail to \(address)") }
        return message
    }

    /// Registers `email` and signs in, reading the registration's mail away.
    func signUp(_ email: String, password: String = "correct horse battery") async throws -> TokenResponse {
        let tokens = try await client.signUp(email, password: password)
        await deliver()
        return tokens
    }
}

struct MailTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

func withMail(
    config: [String: String] = [:], clock: ManualClock = ManualClock(Date()),
    _ body: @escaping @Sendable (MailHarness) async throws -> Void
) async throws {
    let directory = try TestDataDirectory.make()
    defer { directory.remove() }
    let reader = directory.reader(fastHashing.merging(config) { $1 })
    let runtime = try ServiceRuntime(name: .auth, reader: reader, clock: clock, viewKeys: TestViewKeys.ring)
    let mail = CaughtMail()
    var dependencies = AuthDependencies(media: .fixed([:]), viewKeys: TestViewKeys.ring)
    dependencies.mailTransport = mail
    let parts = try await buildRouter(runtime: runtime, reader: reader, dependencies: dependencies)
    let runner = try parts.services.compactMap { $0 as? JobRunner }.first ?? { throw MailTestError("no runner") }()
    let housekeeping =
        try parts.services.compactMap { $0 as? MailHousekeeping }.first ?? { throw MailTestError("no sweeper") }()
    let app = Application(
        router: parts.router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), logger: .test("auth"))
    try await app.test(.router) { client in
        try await body(
            MailHarness(
                client: client, mail: mail, runner: runner, housekeeping: housekeeping, clock: clock,
                directory: directory))
    }
}

extension MailMessage {
    /// The six-digit code the text carries.
    var code: String? {
        text.firstMatch(of: /code: (\d{6})/).map { String($0.1) }
    }

    /// The token of the link the text carries.
    var linkToken: String? {
        text.firstMatch(of: /token=([A-Za-z0-9_-]{43})/).map { String($0.1) }
    }
}

extension TestClientProtocol {
    /// Posts a link page's form, as its button does.
    func postForm(_ path: String, _ fields: [(String, String)]) async throws -> TestResponse {
        let body = fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")" }
            .joined(separator: "&")
        return try await execute(
            uri: path, method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
            body: ByteBuffer(string: body))
    }

    /// The signed-in user's profile.
    func me(_ tokens: TokenResponse) async throws -> UserProfile {
        try await get("/v1/me", token: tokens.accessToken).json(UserProfile.self)
    }
}
