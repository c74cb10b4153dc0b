import AsyncHTTPClient
import Foundation
import GRDB
import NIOHTTP1
import ServiceHTTP
import ServiceStore
import Synchronization
import TestSupport
import Testing

/// Auth in depth across the real processes: the first admin named by the CLI, a duress
/// sign-in delivered to alerts that was down at the time and never logged, guests stopped at
/// the gateway, a signing key rotated under running services, logout honoured everywhere
/// (push devices included), and the account mails through a real SMTP server (``MailFlow``).
@Suite(.serialized) struct AuthStackTests {
    @Test func duressRotationGuestsLogoutAndMailAcrossTheStack() async throws {
        let directory = try TestDataDirectory.make()
        let smtp = try await SMTPServer.start(mode: .startTLS, in: directory)
        let stack = try await Stack.start(
            publicTLS: false, environment: MailFlow.environment(smtp, directory: directory), directory: directory)
        do {
            try await stack.run(lines: 30) { stack in
                try await exercise(stack)
                try await MailFlow(stack: stack, smtp: smtp).run()
            }
        } catch {
            await smtp.stop()
            throw error
        }
        await smtp.stop()
    }

    func exercise(_ stack: Stack) async throws {
        let document = try OpenAPIDocument.load()
        func call(
            _ method: NIOHTTP1.HTTPMethod, _ path: String, token: String? = nil, json: (any Encodable)? = nil
        ) async throws -> FullResponse {
            let response = try await stack.client.call(method, stack.url(path), token: token, json: json)
            let problems = document.check(
                method: method.rawValue, path: path, status: response.status, body: response.body)
            #expect(problems.isEmpty, "\(problems)")
            return response
        }
        func signUp(_ email: String) async throws -> TokenResponse {
            _ = try await call(
                .POST, "/v1/auth/register", json: RegisterRequest(email: email, password: "correct horse battery"))
            return try await call(
                .POST, "/v1/auth/login", json: LoginRequest(email: email, password: "correct horse battery")
            )
            .decode(TokenResponse.self)
        }

        // 1. The operator names the first admin with the CLI.
        let root = try await signUp("root@example.com")
        let grant = try await stack.pinhole(["admin", "grant", "--email", "root@example.com", "--role", "admin"])
        #expect(grant.status == 0, "\(grant.lines)")
        #expect(grant.lines.contains { $0.contains("now holds: admin") }, "\(grant.lines)")
        let unknown = try await stack.pinhole(["admin", "grant", "--email", "nobody@example.com"])
        #expect(unknown.status != 0)

        // 2. A tenant and a customer, through the gateway.
        let issued = try await call(
            .POST, "/v1/admin/tenants", token: root.accessToken, json: TenantCreate(name: "Acme")
        )
        .decode(TenantKeyIssued.self)
        let enrolled = try await call(
            .POST, "/v1/tenants/\(issued.tenant.id)/customers", token: root.accessToken,
            json: CustomerEnrolment(customerRef: "ivan09", pin: "2468", duressPin: "1357"))
        #expect(enrolled.status == 201)

        // 3. Alerts is down when the customer signs in under duress; the answer does not care.
        await stack.kill(.alerts)
        let duress = try await call(
            .POST, "/v1/sessions/login",
            json: PinLoginRequest(
                tenantKey: issued.apiKey, customerRef: "ivan09", pin: "1357", device: DeviceInfo(platform: "android"),
                location: GeoLocation(latitude: 40.4168, longitude: -3.7038)))
        #expect(duress.status == 200)
        #expect(try duress.decode(PinLoginResponse.self).verdict == .duress)
        try stack.launch(.alerts)
        #expect(await stack.waitUntilReady(.alerts))
        let alertsDatabase = try DatabaseQueue(
            path: stack.directory.url.appendingPathComponent("alerts/alerts.sqlite").path)
        let delivered = await eventually(timeout: .seconds(20)) {
            (try? await alertsDatabase.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM duress_alert WHERE customer_ref = 'ivan09'")
            }) == 1
        }
        #expect(delivered, "duress.raised reached alerts after it came back")
        try alertsDatabase.close()
        // Nothing any process printed names it.
        for name in ServiceName.executables {
            let leaks = stack.logs(of: name).filter { $0.lowercased().contains("duress") }
            #expect(leaks.isEmpty, "\(name.rawValue): \(leaks)")
        }

        // 4. Guests browse, and the gateway refuses anything else.
        let guest = try await call(.POST, "/v1/auth/guest").decode(GuestTokenResponse.self)
        let browse = try await call(.GET, "/v1/feed/nearby?lat=40.4&lon=-3.7&radius_m=1000", token: guest.accessToken)
        #expect(browse.status == 200)
        let write = try await call(
            .POST, "/v1/reports", token: guest.accessToken,
            json: ReportCreate(targetType: .post, targetId: UUID().uuidString.lowercased(), reason: .spam))
        #expect(write.status == 403)
        #expect(write.errorCode == .guestReadOnly)

        // 5. A new signing key while everything runs: old tokens keep working, new ones are
        //    signed with the new key and accepted by every service without a restart.
        let user = try await signUp("kim@example.com")
        let oldKid = try header(of: user.accessToken)
        let rotate = try await stack.pinhole(["keys", "rotate"])
        #expect(rotate.status == 0, "\(rotate.lines)")
        var fresh: TokenResponse?
        let rotated = await eventually(timeout: .seconds(10), every: .milliseconds(250)) {
            fresh = try? await call(
                .POST, "/v1/auth/login", json: LoginRequest(email: "kim@example.com", password: "correct horse battery")
            ).decode(TokenResponse.self)
            return (try? fresh.map { try header(of: $0.accessToken) }) != oldKid && fresh != nil
        }
        #expect(rotated, "auth signs with the new key")
        let newToken = try #require(fresh).accessToken
        let jwks = try await call(.GET, "/.well-known/jwks.json").decode(JWKSDocument.self)
        #expect(jwks.keys.count == 2)
        for token in [user.accessToken, newToken] {
            #expect(try await call(.GET, "/v1/me", token: token).status == 200)
            #expect(try await call(.GET, "/v1/notifications", token: token).status == 200)
        }

        // Both sessions register a push device (StreakSnap's Expo route and an APNs token).
        let expo = PushTokenUpdate(pushToken: "ExponentPushToken[kim-phone]")
        #expect(try await call(.PUT, "/v1/me/push-token", token: user.accessToken, json: expo).status == 201)
        let apns = DeviceRegistration(
            provider: .apns, token: String(repeating: "0f", count: 32), bundleId: "com.example.app",
            environment: .production)
        #expect(try await call(.POST, "/v1/devices", token: newToken, json: apns).status == 201)
        #expect(try await call(.GET, "/v1/devices", token: newToken).decode(Page<Device>.self).items.count == 2)

        // 6. Logout everywhere: within a second, other services refuse the old token too.
        #expect(try await call(.POST, "/v1/auth/logout-all", token: newToken).status == 204)
        // Polled gently: the gateway's read limit counts these calls too.
        let seen = Mutex<[String]>([])
        let refused = await eventually(timeout: .seconds(5), every: .milliseconds(250)) {
            let status = (try? await call(.GET, "/v1/notifications", token: user.accessToken))?.status
            seen.withLock { $0.append("\(ContinuousClock.now) \(status ?? 0)") }
            return status == 401
        }
        #expect(refused, "alerts stops accepting a token whose session ended: \(seen.withLock { $0 })")

        // 7. The ended sessions' push devices went with them (session.ended, auth → alerts).
        let again = try await call(
            .POST, "/v1/auth/login", json: LoginRequest(email: "kim@example.com", password: "correct horse battery")
        ).decode(TokenResponse.self)
        let cleared = await eventually(timeout: .seconds(10), every: .milliseconds(250)) {
            (try? await call(.GET, "/v1/devices", token: again.accessToken).decode(Page<Device>.self).items.isEmpty)
                == true
        }
        #expect(cleared, "logout-all removes the devices of every session")
    }

    func header(of token: String) throws -> String {
        struct Header: Decodable { var kid: String }
        guard let data = Base64URL.decode(token.split(separator: ".")[0]) else { throw StackError("not a JWT") }
        return try JSONDecoder().decode(Header.self, from: data).kid
    }
}
