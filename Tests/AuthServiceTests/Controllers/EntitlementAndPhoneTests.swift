import AsyncHTTPClient
import Contracts
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import Synchronization
import TestSupport
import Testing

@testable import AuthService

/// The subscription webhook and phone verification.
@Suite struct EntitlementAndPhoneTests {
    static let secret = "rc-webhook-secret"

    func webhook(
        _ client: some TestClientProtocol, _ event: RevenueCatEvent, authorization: String? = "Bearer \(secret)"
    ) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let authorization { headers[.authorization] = authorization }
        return try await client.post("/v1/webhooks/revenuecat", RevenueCatWebhook(event: event), headers: headers)
    }

    /// The premium flag other services see, straight from the session state auth serves.
    func premium(_ directory: TestDataDirectory, session: String, at now: Date) async throws -> Bool? {
        let pool = try directory.authDatabasePool()
        defer { try? pool.close() }
        let store = try AuthStore.beside(pool, directory: directory, clock: SystemClock())
        return try await store.sessions.sessionState(id: session, now: now)?.premium
    }

    @Test func subscriptionEventsMoveThePremiumStateOnceEachAndInOrder() async throws {
        let clock = ManualClock(Date())
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        try await withAuth(
            clock: clock, config: ["auth.revenuecat.webhookSecret": Self.secret], directory: directory
        ) { client in
            let tokens = try await client.signUp("snapper@example.com")
            let user = try await client.userID(of: tokens)
            let ms = { (date: Date) in Int64(date.timeIntervalSince1970 * 1000) }
            let month = clock.now().addingTimeInterval(30 * 86_400)
            func event(_ id: String, _ type: String, at offset: TimeInterval, expires: Date? = month) -> RevenueCatEvent
            {
                RevenueCatEvent(
                    id: id, type: type, appUserId: user, productId: "streaksnap_pro_monthly",
                    eventTimestampMs: ms(clock.now().addingTimeInterval(offset)), expirationAtMs: expires.map(ms))
            }

            // The secret is required, compared whole.
            #expect(try await webhook(client, event("e0", "TEST", at: 0), authorization: nil).status == .unauthorized)
            #expect(
                try await webhook(client, event("e0", "TEST", at: 0), authorization: "Bearer nope").status
                    == .unauthorized)
            #expect(try await premium(directory, session: tokens.sessionId, at: clock.now()) == false)
            func me() async throws -> UserProfile {
                try await client.get("/v1/me", token: tokens.accessToken).json(UserProfile.self)
            }
            #expect(try await me().premium == false)

            let bought = try await webhook(client, event("e1", "INITIAL_PURCHASE", at: 0))
            #expect(try bought.json(WebhookReceipt.self).status == "applied")
            #expect(try await premium(directory, session: tokens.sessionId, at: clock.now()) == true)
            // StreakSnap's settings screen shows the plan from the profile itself.
            let profile = try await me()
            #expect(profile.premium && profile.counts == ProfileCounts() && profile.stats?.challenges == nil)
            // Redelivered: nothing more happens.
            #expect(
                try await webhook(client, event("e1", "INITIAL_PURCHASE", at: 0)).json(WebhookReceipt.self).status
                    == "duplicate")

            // Cancelled: premium until the period ends. A billing issue keeps it too.
            _ = try await webhook(client, event("e2", "CANCELLATION", at: 10))
            #expect(try await premium(directory, session: tokens.sessionId, at: clock.now()) == true)
            #expect(try await premium(directory, session: tokens.sessionId, at: month.addingTimeInterval(1)) == false)
            _ = try await webhook(client, event("e3", "BILLING_ISSUE", at: 20))
            #expect(try await premium(directory, session: tokens.sessionId, at: clock.now()) == true)

            // Expired; then a late RENEWAL stamped before the expiry changes nothing.
            _ = try await webhook(client, event("e4", "EXPIRATION", at: 40, expires: nil))
            #expect(try await premium(directory, session: tokens.sessionId, at: clock.now()) == false)
            _ = try await webhook(client, event("e5", "RENEWAL", at: 30))
            #expect(try await premium(directory, session: tokens.sessionId, at: clock.now()) == false)
            _ = try await webhook(client, event("e6", "RENEWAL", at: 50))
            #expect(try await premium(directory, session: tokens.sessionId, at: clock.now()) == true)

            // A token pack becomes an event for streak; an unknown user is acknowledged and ignored.
            let pack = RevenueCatEvent(
                id: "e7", type: "NON_RENEWING_PURCHASE", appUserId: user, productId: "recovery_token_pack_10")
            #expect(try await webhook(client, pack).json(WebhookReceipt.self).status == "applied")
            let stranger = RevenueCatEvent(
                id: "e8", type: "INITIAL_PURCHASE", appUserId: UUID().uuidString, productId: "streaksnap_pro_monthly")
            #expect(try await webhook(client, stranger).json(WebhookReceipt.self).status == "ignored")
            let events = try await directory.authDatabase().read { db in
                try String.fetchAll(
                    db, sql: "SELECT body FROM kit_outbox_event WHERE type = 'recovery_tokens.purchased'")
            }
            #expect(events.count == 1)
            #expect(events.first?.contains(#""tokens":10"#) == true)
        }
        try await withAuth { client in
            // Not configured: there is no webhook.
            let response = try await client.post(
                "/v1/webhooks/revenuecat",
                RevenueCatWebhook(event: RevenueCatEvent(id: "x", type: "TEST", appUserId: nil, productId: nil)))
            #expect(response.status == .notFound)
        }
    }

    @Test func aPhoneIsVerifiedWithTheCodeSentAndCodesAreLimited() async throws {
        let clock = ManualClock(Date())
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        try await withAuth(clock: clock, directory: directory) { client in
            let tokens = try await client.signUp("agora@example.com")
            let start = { (number: String) in
                try await client.post(
                    "/v1/me/phone/verification", PhoneVerificationStart(phoneNumber: number), token: tokens.accessToken)
            }
            for bad in ["4155550123", "+0155550123", "+1", "+1415555012345678", "+1415abc0123"] {
                #expect(try await start(bad).error?.code == .validationFailed, "\(bad)")
            }
            let started = try await start("+1 (415) 555-0123")
            #expect(started.status == .accepted)
            #expect(try started.json(PhoneVerificationStarted.self).phoneNumber == "+14155550123")
            let sent = try await directory.authDatabase().read { db in
                try String.fetchOne(db, sql: "SELECT body FROM sms_outbox WHERE phone_number = '+14155550123'")
            }
            let code = try #require(
                sent?.split(separator: " ").first { $0.count == 7 && $0.hasSuffix(".") }?.dropLast())
            let stored = try await directory.authDatabase().read { db in
                try String.fetchOne(db, sql: "SELECT code_hash FROM phone_challenge")
            }
            #expect(stored != nil && stored?.contains(String(code)) == false, "only a keyed hash is stored")

            let check = { (number: String, code: String) in
                try await client.post(
                    "/v1/me/phone/verification/check", PhoneVerificationCheck(phoneNumber: number, code: code),
                    token: tokens.accessToken)
            }
            #expect(try await check("+14155550123", "000000").error?.code == .invalidCode)
            #expect(try await check("+14155550199", String(code)).error?.code == .invalidCode)
            #expect(try await client.get("/v1/me/phone", token: tokens.accessToken).status == .notFound)
            let verified = try await check("+14155550123", String(code))
            #expect(verified.status == .ok)
            #expect(try verified.json(VerifiedPhone.self).phoneNumber == "+14155550123")
            #expect(try await client.get("/v1/me/phone", token: tokens.accessToken).status == .ok)
            // A used code does not work twice.
            #expect(try await check("+14155550123", String(code)).error?.code == .invalidCode)

            // Five tries per code, then even the right one fails; codes expire.
            _ = try await start("+442071838750")
            let second = try await directory.authDatabase().read { db in
                try String.fetchOne(db, sql: "SELECT body FROM sms_outbox WHERE phone_number = '+442071838750'")
            }
            let secondCode = try #require(
                second?.split(separator: " ").first { $0.count == 7 && $0.hasSuffix(".") }?.dropLast())
            for _ in 0..<5 { _ = try await check("+442071838750", "111111") }
            #expect(try await check("+442071838750", String(secondCode)).error?.code == .invalidCode)
            _ = try await start("+442071838750")
            clock.advance(by: 601)
            #expect(try await check("+442071838750", "123456").error?.code == .invalidCode)

            // Three codes asked for so far; two more are allowed this hour, then 429.
            _ = try await start("+33142685300")
            _ = try await start("+33142685300")
            let limited = try await start("+33142685300")
            #expect(limited.status == .tooManyRequests)
            clock.advance(by: 3601)
            let again = try await client.post(
                "/v1/auth/login", LoginRequest(email: "agora@example.com", password: "correct horse battery")
            ).json(TokenResponse.self)
            let later = try await client.post(
                "/v1/me/phone/verification", PhoneVerificationStart(phoneNumber: "+33142685300"),
                token: again.accessToken)
            #expect(later.status == .accepted, "\(later.error?.message ?? "")")
        }
    }

    @Test func withTwilioVerifyConfiguredTwilioSendsAndChecksTheCode() async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        let twilio = try await FakeTwilio.start()
        do {
            let config = [
                "auth.twilio.accountSid": "AC123", "auth.twilio.authToken": "twilio-secret",
                "auth.twilio.serviceSid": "VA456", "auth.twilio.baseUrl": twilio.url,
            ]
            try await withAuth(config: config, directory: directory) { client in
                let tokens = try await client.signUp("twilio@example.com")
                let started = try await client.post(
                    "/v1/me/phone/verification", PhoneVerificationStart(phoneNumber: "+14155550123"),
                    token: tokens.accessToken)
                #expect(started.status == .accepted)
                #expect(twilio.requests.withLock { $0 } == ["Verifications To=+14155550123 Channel=sms"])
                // Nothing of the code is kept here: Twilio holds it.
                let local = try await directory.authDatabase().read { db in
                    try Int.fetchOne(
                        db,
                        sql: "SELECT (SELECT COUNT(*) FROM sms_outbox) + (SELECT COUNT(code_hash) FROM phone_challenge)"
                    )
                }
                #expect(local == 0)
                let check = { (code: String) in
                    try await client.post(
                        "/v1/me/phone/verification/check",
                        PhoneVerificationCheck(phoneNumber: "+14155550123", code: code),
                        token: tokens.accessToken)
                }
                #expect(try await check("000000").error?.code == .invalidCode)
                #expect(try await check(FakeTwilio.code).status == .ok)
                #expect(
                    twilio.requests.withLock { $0 }.last == "VerificationCheck To=+14155550123 Code=\(FakeTwilio.code)")
            }
        } catch {
            await twilio.stop()
            throw error
        }
        await twilio.stop()
    }
}

/// Twilio Verify's two endpoints, checking the basic credentials as Twilio does.
final class FakeTwilio: Sendable {
    static let code = "424242"
    let url: String
    let requests = Mutex<[String]>([])
    let running = Mutex<RunningApplication?>(nil)

    init(url: String) { self.url = url }

    static func start() async throws -> FakeTwilio {
        let port = try FreePort.next()
        let fake = FakeTwilio(url: "http://127.0.0.1:\(port)")
        let router = Router()
        let credentials = "Basic " + Data("AC123:twilio-secret".utf8).base64EncodedString()
        router.post("/v2/Services/VA456/:endpoint") { request, context -> Response in
            guard request.headers[.authorization] == credentials else { return Response(status: .unauthorized) }
            var request = request
            let form = String(buffer: try await request.collectBody(upTo: 1 << 16)).split(separator: "&")
                .map { $0.removingPercentEncoding ?? "" }.sorted(by: >)
            let endpoint = try context.parameters.require("endpoint")
            fake.requests.withLock { $0.append("\(endpoint) " + form.joined(separator: " ")) }
            if endpoint == "Verifications" { return Response(status: .created) }
            let approved = form.contains("Code=\(code)")
            let body = #"{"status":"\#(approved ? "approved" : "pending")"}"#
            return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)), logger: .test("fake"))
        let running = try await RunningApplication.start(app)
        fake.running.withLock { $0 = running }
        _ = await eventually {
            (try? await HTTPClient.shared.call(.POST, fake.url + "/v2/Services/VA456/probe"))?.status == 401
        }
        return fake
    }

    func stop() async {
        await running.withLock { $0 }?.stop()
    }
}
