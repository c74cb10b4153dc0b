import Contracts
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import AuthService

/// Tenants, customers, PIN sign-in with a silent duress PIN, incidents, throttling.
@Suite struct PinSessionTests {
    /// A tenant with an admin and a responder, ready for customers.
    struct TenantSetup {
        let tenant: Tenant
        let apiKey: String
        let admin: TokenResponse
        let responder: TokenResponse
    }

    static func setUp(_ client: some TestClientProtocol, _ directory: TestDataDirectory) async throws -> TenantSetup {
        let root = try await client.signUp("root@example.com")
        try directory.grant(.admin, to: try await client.userID(of: root))
        let created = try await client.post(
            "/v1/admin/tenants", TenantCreate(name: "Acme Security"), token: root.accessToken)
        #expect(created.status == .created)
        // A name is at most 100 code points (as the document counts), however few characters they draw.
        let combining = "e" + String(repeating: "\u{301}", count: 100)
        #expect(
            try await client.post("/v1/admin/tenants", TenantCreate(name: combining), token: root.accessToken).status
                == .badRequest)
        // One line: a form feed breaks it; blanks (U+001C as well as spaces) are no name.
        for name in ["Acme\u{0C}Security", " \u{1C}\u{3000} "] {
            #expect(
                try await client.post("/v1/admin/tenants", TenantCreate(name: name), token: root.accessToken).status
                    == .badRequest)
        }
        let issued = try created.json(TenantKeyIssued.self)
        #expect(issued.apiKey.hasPrefix("tk_"))
        let admin = try await client.signUp("tenant-admin@example.com")
        let responder = try await client.signUp("responder@example.com")
        for (tokens, role) in [(admin, Role.tenantAdmin), (responder, .tenantResponder)] {
            let change = RoleChange(userId: try await client.userID(of: tokens), role: role, tenantId: issued.tenant.id)
            #expect(try await client.post("/v1/admin/roles", change, token: root.accessToken).status == .ok)
        }
        return TenantSetup(tenant: issued.tenant, apiKey: issued.apiKey, admin: admin, responder: responder)
    }

    static func enrol(
        _ client: some TestClientProtocol, _ setup: TenantSetup, _ reference: String, pin: String = "1234",
        duressPin: String = "9876"
    ) async throws {
        let response = try await client.post(
            "/v1/tenants/\(setup.tenant.id)/customers",
            CustomerEnrolment(customerRef: reference, pin: pin, duressPin: duressPin), token: setup.admin.accessToken)
        #expect(response.status == .created, "\(response.error?.message ?? "")")
    }

    static func login(
        _ client: some TestClientProtocol, _ setup: TenantSetup, _ reference: String, _ pin: String,
        device: String? = nil
    ) async throws -> TestResponse {
        try await client.post(
            "/v1/sessions/login",
            PinLoginRequest(
                tenantKey: setup.apiKey, customerRef: reference, pin: pin,
                device: DeviceInfo(platform: "ios", version: "1.4.0", id: device),
                location: GeoLocation(latitude: 51.5007, longitude: -0.1246)))
    }

    @Test func normalAndDuressAnswersDifferOnlyInTheVerdict() async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        try await withAuth(config: fastHashing, directory: directory) { client in
            let setup = try await Self.setUp(client, directory)
            try await Self.enrol(client, setup, "alice01")
            try await Self.enrol(client, setup, "bobby02")

            let normal = try await Self.login(client, setup, "alice01", "1234")
            let duress = try await Self.login(client, setup, "bobby02", "9876")
            #expect(normal.status == .ok)
            #expect(duress.status == .ok)
            let normalBody = try normal.json(PinLoginResponse.self)
            let duressBody = try duress.json(PinLoginResponse.self)
            #expect(normalBody.verdict == .normal)
            #expect(duressBody.verdict == .duress)
            #expect(normalBody.recommendedAction == duressBody.recommendedAction)

            // Same headers (names, order and values apart from the request id), same size,
            // same field order, and tokens of the same shape carrying the same claims.
            let names = { (response: TestResponse) in response.headers.map(\.name.canonicalName) }
            #expect(names(normal) == names(duress))
            for field in normal.headers where !["x-request-id", "traceparent"].contains(field.name.canonicalName) {
                #expect(duress.headers[field.name] == field.value, "\(field.name)")
            }
            let normalText = String(buffer: normal.body)
            let duressText = String(buffer: duress.body)
            #expect(normalText.utf8.count == duressText.utf8.count)
            #expect(Self.keys(in: normalText) == Self.keys(in: duressText))
            #expect(normalBody.accessToken?.utf8.count == duressBody.accessToken?.utf8.count)
            #expect(normalBody.refreshToken?.utf8.count == duressBody.refreshToken?.utf8.count)
            let normalClaims = try Self.claims(of: normalBody.accessToken)
            let duressClaims = try Self.claims(of: duressBody.accessToken)
            #expect(normalClaims.mapValues(\.kind) == duressClaims.mapValues(\.kind))
            #expect(duressClaims["scope"]?.text == "user")

            // Only the server knows: the duress session is limited, an incident is open and
            // `duress.raised` waits in the outbox for alerts.
            let limited = try await directory.authDatabase().read { db in
                try Bool.fetchAll(
                    db, sql: "SELECT limited FROM session WHERE tenant_id IS NOT NULL ORDER BY created_at")
            }
            #expect(limited == [false, true])
            let events = try await directory.authDatabase().read { db in
                try String.fetchAll(db, sql: "SELECT type FROM kit_outbox_event WHERE type != 'profile.changed'")
            }
            #expect(events == ["duress.raised"])

            // Both can use their tokens the same way.
            for body in [normalBody, duressBody] {
                #expect(try await client.get("/v1/me", token: body.accessToken).status == .ok)
            }
        }
    }

    @Test func afterDuressEverySignInStaysLimitedUntilAResponderClearsTheIncident() async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        try await withAuth(config: fastHashing, directory: directory) { client in
            let setup = try await Self.setUp(client, directory)
            try await Self.enrol(client, setup, "carol03")
            #expect(
                try await Self.login(client, setup, "carol03", "9876").json(PinLoginResponse.self).verdict == .duress)
            // The attacker makes her use the normal PIN next: still a duress session.
            let again = try await Self.login(client, setup, "carol03", "1234").json(PinLoginResponse.self)
            #expect(again.verdict == .duress)

            let incidents = try await client.get(
                "/v1/tenants/\(setup.tenant.id)/incidents", token: setup.responder.accessToken)
            #expect(incidents.status == .ok)
            let open = try incidents.json(Page<DuressIncident>.self).items
            #expect(open.count == 1)
            #expect(open.first?.customerRef == "carol03")
            #expect(open.first?.location == GeoLocation(latitude: 51.5007, longitude: -0.1246))
            let events = try await directory.authDatabase().read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM kit_outbox_event WHERE type = 'duress.raised'")
            }
            #expect(events == 2)

            // A plain user, or someone of another tenant, cannot see or clear it.
            let outsider = try await client.signUp("outsider@example.com")
            let id = try #require(open.first?.id)
            #expect(
                try await client.get("/v1/tenants/\(setup.tenant.id)/incidents", token: outsider.accessToken).status
                    == .notFound)
            let clearPath = "/v1/tenants/\(setup.tenant.id)/incidents/\(id)/clear"
            #expect(
                try await client.post(clearPath, [String: String](), token: outsider.accessToken).status == .notFound)

            let cleared = try await client.post(clearPath, [String: String](), token: setup.responder.accessToken)
            #expect(cleared.status == .ok)
            #expect(try cleared.json(DuressIncident.self).clearedAt != nil)
            // Alerts hears it (once: clearing again changes nothing).
            #expect(
                try await client.post(clearPath, [String: String](), token: setup.responder.accessToken).status == .ok)
            let clearedEvents = try await directory.authDatabase().read { db in
                try Data.fetchAll(db, sql: "SELECT body FROM kit_outbox_event WHERE type = 'duress.cleared'")
                    .map { String(decoding: $0, as: UTF8.self) }
            }
            #expect(clearedEvents.count == 1)
            #expect(clearedEvents.first?.contains("\"incidentId\":\"\(id)\"") == true)
            #expect(
                try await Self.login(client, setup, "carol03", "1234").json(PinLoginResponse.self).verdict == .normal)
            let openAfter = try await client.get(
                "/v1/tenants/\(setup.tenant.id)/incidents?status=open", token: setup.responder.accessToken)
            #expect(try openAfter.json(Page<DuressIncident>.self).items.isEmpty)
        }
    }

    @Test func failuresTenantErrorsAndMalformedInput() async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        try await withAuth(config: fastHashing, directory: directory) { client in
            let setup = try await Self.setUp(client, directory)
            try await Self.enrol(client, setup, "dave04")

            for (reference, pin) in [("dave04", "0000"), ("nobody99", "1234")] {
                let fail = try await Self.login(client, setup, reference, pin)
                #expect(fail.status == .ok)
                let body = try fail.json(PinLoginResponse.self)
                #expect(body.verdict == .fail)
                #expect(body.recommendedAction == "RETRY")
                #expect(body.sessionId == nil && body.accessToken == nil)
            }

            let unknownKey = try await client.post(
                "/v1/sessions/login", PinLoginRequest(tenantKey: "tk_nope", customerRef: "dave04", pin: "1234"))
            #expect(unknownKey.status == .unauthorized)
            #expect(unknownKey.error?.code == .invalidTenantKey)

            let malformed: [PinLoginRequest] = [
                PinLoginRequest(tenantKey: setup.apiKey, customerRef: "ab", pin: "1234"),
                PinLoginRequest(tenantKey: setup.apiKey, customerRef: "dave-04", pin: "1234"),
                PinLoginRequest(tenantKey: setup.apiKey, customerRef: String(repeating: "a", count: 51), pin: "1234"),
                PinLoginRequest(tenantKey: setup.apiKey, customerRef: "dave04", pin: "123"),
                PinLoginRequest(tenantKey: setup.apiKey, customerRef: "dave04", pin: "123456789"),
                PinLoginRequest(tenantKey: setup.apiKey, customerRef: "dave04", pin: "12a4"),
                PinLoginRequest(tenantKey: setup.apiKey, customerRef: "dave04", pin: "١٢٣٤"),
                PinLoginRequest(
                    tenantKey: setup.apiKey, customerRef: "dave04", pin: "1234",
                    location: GeoLocation(latitude: 91, longitude: 0)),
            ]
            for request in malformed {
                let response = try await client.post("/v1/sessions/login", request)
                #expect(response.error?.code == .validationFailed, "\(request.customerRef) \(request.pin)")
            }

            // Suspension takes effect at once; reactivation restores it.
            let root = try await client.post(
                "/v1/auth/login", LoginRequest(email: "root@example.com", password: "correct horse battery")
            ).json(TokenResponse.self)
            let suspend = try await client.send(
                .patch, "/v1/admin/tenants/\(setup.tenant.id)", TenantUpdate(status: .suspended),
                token: root.accessToken)
            #expect(try suspend.json(Tenant.self).status == .suspended)
            let suspended = try await Self.login(client, setup, "dave04", "1234")
            #expect(suspended.status == .forbidden)
            #expect(suspended.error?.code == .tenantSuspended)
            _ = try await client.send(
                .patch, "/v1/admin/tenants/\(setup.tenant.id)", TenantUpdate(status: .active), token: root.accessToken)
            #expect(
                try await Self.login(client, setup, "dave04", "1234").json(PinLoginResponse.self).verdict == .normal)

            // A new key replaces the old one.
            let replaced = try await client.post(
                "/v1/admin/tenants/\(setup.tenant.id)/api-key", [String: String](), token: root.accessToken
            ).json(TenantKeyIssued.self)
            #expect(try await Self.login(client, setup, "dave04", "1234").error?.code == .invalidTenantKey)
            let renewed = TenantSetup(
                tenant: setup.tenant, apiKey: replaced.apiKey, admin: setup.admin, responder: setup.responder)
            #expect(
                try await Self.login(client, renewed, "dave04", "1234").json(PinLoginResponse.self).verdict == .normal)
        }
    }

    @Test func tenantAdminsEnrolAndResetOnlyTheirOwnCustomers() async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        try await withAuth(config: fastHashing, directory: directory) { client in
            let setup = try await Self.setUp(client, directory)
            let path = "/v1/tenants/\(setup.tenant.id)/customers"
            try await Self.enrol(client, setup, "erin05")

            let duplicate = try await client.post(
                path, CustomerEnrolment(customerRef: "erin05", pin: "1111", duressPin: "2222"),
                token: setup.admin.accessToken)
            #expect(duplicate.status == .conflict)
            for (pin, duress) in [("1111", "1111"), ("11", "2222"), ("1111", "22x2")] {
                let response = try await client.post(
                    path, CustomerEnrolment(customerRef: "fred06", pin: pin, duressPin: duress),
                    token: setup.admin.accessToken)
                #expect(response.error?.code == .validationFailed, "\(pin)/\(duress)")
            }
            // Responders and strangers cannot enrol; another tenant's admin sees no tenant.
            for tokens in [setup.responder, try await client.signUp("nobody@example.com")] {
                let response = try await client.post(
                    path, CustomerEnrolment(customerRef: "fred06", pin: "1111", duressPin: "2222"),
                    token: tokens.accessToken)
                #expect(response.status == .notFound)
            }

            let reset = try await client.send(
                .put, "\(path)/erin05/pins", CustomerPins(pin: "5555", duressPin: "6666"),
                token: setup.admin.accessToken)
            #expect(reset.status == .ok)
            #expect(try await Self.login(client, setup, "erin05", "1234").json(PinLoginResponse.self).verdict == .fail)
            #expect(
                try await Self.login(client, setup, "erin05", "5555").json(PinLoginResponse.self).verdict == .normal)
            #expect(
                try await client.send(
                    .put, "\(path)/nobody/pins", CustomerPins(pin: "5555", duressPin: "6666"),
                    token: setup.admin.accessToken
                ).status == .notFound)
            let customer = try await client.get("\(path)/erin05", token: setup.admin.accessToken)
            #expect(try customer.json(Customer.self).customerRef == "erin05")
            #expect(!String(buffer: customer.body).contains("5555"))
        }
    }

    @Test func guessingIsSlowedPerCustomerAndDeviceButTheRealDeviceStillGetsIn() async throws {
        let clock = ManualClock(Date())
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        try await withAuth(clock: clock, config: fastHashing, directory: directory) { client in
            let setup = try await Self.setUp(client, directory)
            try await Self.enrol(client, setup, "gina07")
            #expect(
                try await Self.login(client, setup, "gina07", "1234", device: "gina-phone").json(PinLoginResponse.self)
                    .verdict == .normal)

            // Someone else guesses: five free failures, then the customer is held back.
            for attempt in 1...5 {
                let response = try await Self.login(client, setup, "gina07", "000\(attempt)", device: "thief")
                #expect(try response.json(PinLoginResponse.self).verdict == .fail)
            }
            #expect(try await Self.login(client, setup, "gina07", "0006", device: "thief").status == .ok)
            let blocked = try await Self.login(client, setup, "gina07", "1234", device: "thief")
            #expect(blocked.status == .tooManyRequests)
            #expect(blocked.error?.code == .rateLimitExceeded)
            #expect(blocked.headers[.retryAfter] == "1")
            // A new device is held back too (the block is on the customer)...
            #expect(try await Self.login(client, setup, "gina07", "1234", device: "other").status == .tooManyRequests)
            // ...but the phone she signed in on before is not.
            #expect(
                try await Self.login(client, setup, "gina07", "1234", device: "gina-phone").json(PinLoginResponse.self)
                    .verdict == .normal)

            // Delays double and are capped; an unknown reference behaves exactly alike.
            for attempt in 1...6 {
                _ = try await Self.login(client, setup, "ghost99", "000\(attempt)", device: "thief-\(attempt)")
            }
            let ghost = try await Self.login(client, setup, "ghost99", "0000", device: "thief-7")
            #expect(ghost.status == .tooManyRequests)
            clock.advance(by: 2)
            #expect(try await Self.login(client, setup, "ghost99", "0000", device: "thief-7").status == .ok)
            let longer = try await Self.login(client, setup, "ghost99", "0000", device: "thief-8")
            #expect(longer.headers[.retryAfter] == "2")
            clock.advance(by: 86_400)
            #expect(try await Self.login(client, setup, "ghost99", "0000", device: "thief-9").status == .ok)
        }
    }

    @Test func sessionVerifySaysWhetherASessionCanStillBeUsed() async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        try await withAuth(config: fastHashing, directory: directory) { client in
            let setup = try await Self.setUp(client, directory)
            try await Self.enrol(client, setup, "hank08")
            let session = try await Self.login(client, setup, "hank08", "9876").json(PinLoginResponse.self)
            let id = try #require(session.sessionId)
            let live = try await client.get("/v1/sessions/verify?sessionId=\(id)")
            #expect(try live.json(SessionVerification.self) == SessionVerification(sessionId: id, valid: true))
            #expect(!String(buffer: live.body).lowercased().contains("limit"))

            let logout = try await client.execute(
                uri: "/v1/auth/logout", method: .post, headers: [.authorization: "Bearer \(session.accessToken ?? "")"])
            #expect(logout.status == .noContent)
            let ended = try await client.get("/v1/sessions/verify?sessionId=\(id)")
            #expect(try ended.json(SessionVerification.self).valid == false)
            #expect(try await client.get("/v1/sessions/verify").error?.code == .validationFailed)
            #expect(try await client.get("/v1/sessions/verify?sessionId=nope").error?.code == .validationFailed)
        }
    }

    /// The claims of a JWT, decoded without checking it.
    static func claims(of token: String?) throws -> [String: JSONScalar] {
        guard let token, let payload = Base64URL.decode(token.split(separator: ".")[1]) else {
            throw StackError("not a JWT")
        }
        return try JSONDecoder().decode([String: JSONScalar].self, from: payload)
    }

    /// The JSON keys of a flat object, in the order they appear.
    static func keys(in json: String) -> [String] {
        json.split(separator: "\"").enumerated().compactMap { index, part in
            index % 2 == 1 && json.contains("\"\(part)\":") ? String(part) : nil
        }
    }
}

/// A JSON string or number, enough to read one claim.
enum JSONScalar: Decodable {
    case string(String)
    case number(Double)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            self = .string(text)
        } else {
            self = .number(try container.decode(Double.self))
        }
    }

    var text: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var kind: String {
        if case .string = self { return "string" }
        return "number"
    }
}
