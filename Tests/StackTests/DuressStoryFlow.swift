import Crypto
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

/// Transrify's duress story through the gateway, on the notifications stack (its fake APNs):
/// Tara signs in with her duress PIN while alerts is down (SIGKILL); her app places the alert
/// once alerts is back. Nia, 300 m away, and Fay, 5 km away, poll with a 1 km radius: only Nia
/// sees it, on her WebSocket (Transrify's `/v1/alerts/stream`) and as a critical alert at the
/// fake APNs (the stack sets `alerts.apns.criticalAlerts`). Nia acknowledges by NFC, and the tenant's responder sees who did.
struct DuressStoryFlow {
    let flow: SliceFlow
    let fake: FakePushProviders
    var stack: Stack { flow.stack }

    static let taraPlace = GeoLocation(latitude: 51.5007, longitude: -0.1246)
    /// `metres` north of Tara, as the query of `/v1/alerts/nearby`.
    static func north(_ metres: Double, radius: Int = 1000) -> String {
        "tenantKey=tk&lat=\(taraPlace.latitude + metres / 111_195)&lon=\(taraPlace.longitude)&radius_m=\(radius)"
    }

    /// A PIN sign-in through the gateway: the person and their session id.
    func pinLogin(
        _ key: String, _ reference: String, _ pin: String, verdict: PinVerdict
    ) async throws -> (person: Person, session: String) {
        let response = try await flow.call(
            .POST, "/v1/sessions/login",
            json: PinLoginRequest(
                tenantKey: key, customerRef: reference, pin: pin, device: DeviceInfo(platform: "ios")))
        let answer = try response.decode(PinLoginResponse.self)
        #expect(answer.verdict == verdict, "\(response.text)")
        let token = try #require(answer.accessToken)
        return (Person(name: reference, id: "", token: token), try #require(answer.sessionId))
    }

    func nearby(_ person: Person, _ query: String) async throws -> [NearbyAlert] {
        try await flow.call(.GET, "/v1/alerts/nearby?\(query)", as: person).decode(NearbyAlerts.self).alerts
    }

    func run() async throws {
        // The operator's admin makes a tenant, enrols three customers and names a responder.
        let warden = try await flow.signUp("Warden")
        let grant = try await stack.pinhole(["admin", "grant", "--email", "warden@example.com", "--role", "admin"])
        #expect(grant.status == 0, "\(grant.lines)")
        #expect(grant.lines.contains { $0.contains("now holds: admin") }, "\(grant.lines)")
        var issued: TenantKeyIssued?
        var last = ""
        #expect(
            await flow.eventually {
                let response = try? await flow.call(
                    .POST, "/v1/admin/tenants", as: warden, json: TenantCreate(name: "Acme Guards"))
                last = "\(response?.status ?? 0) \(response?.text ?? "")"
                issued = try? response?.decode(TenantKeyIssued.self)
                return issued != nil
            }, "\(last)")
        let tenant = try #require(issued)
        for reference in ["tara01", "nia007", "fay003"] {
            let enrolled = try await flow.call(
                .POST, "/v1/tenants/\(tenant.tenant.id)/customers", as: warden,
                json: CustomerEnrolment(customerRef: reference, pin: "2468", duressPin: "1357"))
            #expect(enrolled.status == 201, "\(enrolled.text)")
        }
        let rita = try await flow.signUp("Rita")
        let named = try await flow.call(
            .POST, "/v1/admin/roles", as: warden,
            json: RoleChange(userId: rita.id, role: .tenantResponder, tenantId: tenant.tenant.id))
        #expect([200, 201].contains(named.status), "\(named.text)")

        // Nia and Fay sign in normally; Nia's phone has an APNs token. Both poll: nothing yet.
        let (nia, _) = try await pinLogin(tenant.apiKey, "nia007", "2468", verdict: .normal)
        let (fay, _) = try await pinLogin(tenant.apiKey, "fay003", "2468", verdict: .normal)
        let niasPhone = String(repeating: "d0", count: 32)
        let registered = try await flow.call(
            .POST, "/v1/devices", as: nia,
            json: DeviceRegistration(
                provider: .apns, token: niasPhone, bundleId: "com.transrify.app", environment: .production))
        #expect(registered.status == 201, "\(registered.text)")
        #expect(try await nearby(nia, Self.north(300)).isEmpty)
        #expect(try await nearby(fay, Self.north(5_000)).isEmpty)

        // Alerts is down when Tara signs in with her duress PIN (no location at sign-in).
        await stack.kill(.alerts)
        let (tara, taraSession) = try await pinLogin(tenant.apiKey, "tara01", "1357", verdict: .duress)
        try stack.launch(.alerts)
        #expect(await stack.waitUntilReady(.alerts))
        let alerts = try DatabaseQueue(path: stack.directory.url.appendingPathComponent("alerts/alerts.sqlite").path)
        #expect(
            await flow.eventually {
                (try? await alerts.read { db in
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM duress_alert WHERE customer_ref = 'tara01'")
                }) == 1
            }, "duress.raised reached alerts after it came back")

        // Nia's phone holds Transrify's live channel open.
        let tls = try TestHTTP.tlsConfiguration(dataDirectory: stack.directory.url)
        let channel = LiveSocket(
            url: stack.url("/v1/alerts/stream?tenantKey=\(tenant.apiKey)").replacingOccurrences(
                of: "https://", with: "wss://"),
            token: nia.token, tls: tls, serverName: "localhost")
        #expect(await channel.waitFor(1), "\(channel.failure ?? "")")

        // Tara's app places the alert: only Nia, 300 m away, is within 1 km.
        let placed = try await flow.acknowledged(
            .POST, "/v1/alerts/duress", as: tara,
            json: DuressAlertRequest(
                sessionId: taraSession, tenantKey: tenant.apiKey, location: Self.taraPlace,
                device: DeviceInfo(platform: "ios")))
        #expect(placed.status == 200, "\(placed.text)")
        let alertID = try placed.decode(DuressAlertAccepted.self).alertId
        let seen = try await nearby(nia, Self.north(300))
        #expect(seen.map(\.alertId) == [alertID])
        #expect(seen.first?.customerRef == "tara01")
        #expect(seen.first.map { abs($0.distanceM - 300) <= 2 } == true)
        // The banner's "View Map" (Transrify, requirement 26.4) has the alert's place in the row.
        #expect(seen.first?.location == Self.taraPlace)
        #expect(try await nearby(fay, Self.north(5_000)).isEmpty)
        #expect(try await nearby(tara, Self.north(10)).isEmpty)

        // It reaches Nia's socket and her phone as a critical alert, never held back.
        #expect(await channel.waitFor(2, timeout: .seconds(30)))
        let message = try JSONCoding.decoder().decode(
            NotificationStreamMessage.self, from: Data(channel.messages[1].utf8))
        #expect(message.notification?.type == .duressAlert)
        #expect(message.notification?.title == "Nearby Duress Alert")
        #expect(message.notification?.body == "Customer tara01 needs help")
        #expect(await flow.eventually { fake.pushes.contains { $0.token == niasPhone } })
        let push = try #require(fake.pushes.first { $0.token == niasPhone })
        let aps = push.body["aps"] as? [String: any Sendable]
        #expect(aps?["interruption-level"] as? String == "critical")
        let sound = aps?["sound"] as? [String: any Sendable]
        #expect(sound?["critical"] as? Double == 1)
        #expect(push.headers["apns-priority"] == "10")
        #expect(
            fake.pushes.filter { $0.token == niasPhone }.count == 1,
            "alerts' job lines: \(stack.logs(of: .alerts).filter { $0.contains("job") })")

        // Nia taps Tara's phone: the tag's payload names the alert.
        let tapped = try await flow.call(
            .POST, "/v1/alerts/ack", as: nia,
            json: AlertAcknowledgementRequest(
                alertId: alertID, customerRef: "nia007", method: .nfc, payload: "trf:duress:\(alertID)"))
        #expect(tapped.status == 200, "\(tapped.text)")
        let wrong = try await flow.call(
            .POST, "/v1/alerts/ack", as: fay,
            json: AlertAcknowledgementRequest(
                alertId: alertID, method: .nfc, payload: "trf:duress:\(UUID().uuidString.lowercased())"))
        #expect(wrong.errorCode == .nfcPayloadMismatch)

        // The tenant's responder sees who acknowledged, and how.
        let listed = try await flow.call(.GET, "/v1/alerts/duress?tenantId=\(tenant.tenant.id)", as: rita)
            .decode(Page<DuressAlertState>.self).items
        #expect(listed.map(\.alertId) == [alertID])
        #expect(listed.first?.acknowledgements.map(\.customerRef) == ["nia007"])
        #expect(listed.first?.acknowledgements.map(\.method) == [.nfc])

        // Tara signs in again under duress and her app places it 100 m north: still one alert,
        // moved there. Fay, who was 5 km away at the raise, comes within reach and polls: she
        // sees that one alert and is told of it now.
        let (taraAgain, secondSession) = try await pinLogin(tenant.apiKey, "tara01", "1357", verdict: .duress)
        let moved = GeoLocation(latitude: Self.taraPlace.latitude + 100 / 111_195, longitude: Self.taraPlace.longitude)
        let replaced = try await flow.call(
            .POST, "/v1/alerts/duress", as: taraAgain,
            json: DuressAlertRequest(
                sessionId: secondSession, tenantKey: tenant.apiKey, location: moved, device: DeviceInfo(platform: "ios")
            ))
        #expect(replaced.status == 200, "\(replaced.text)")
        var rows: [NearbyAlert] = []
        #expect(
            await flow.eventually {
                rows = (try? await nearby(fay, Self.north(500))) ?? []
                return rows.first?.location == moved
            }, "the alert never moved to Tara's latest place: \(rows)")
        #expect(rows.map(\.alertId) == [alertID])
        #expect(
            await flow.eventually {
                (try? await flow.notifications(of: fay))?.contains { $0.type == .duressAlert } == true
            }, "Fay, within reach after the raise, was never told")
        let stillOne = try await flow.call(.GET, "/v1/alerts/duress?tenantId=\(tenant.tenant.id)", as: rita)
            .decode(Page<DuressAlertState>.self).items
        #expect(stillOne.map(\.alertId) == [alertID])

        // Evidence from the second session (under an incident id the app made up) is listed for
        // the responder under the incident on the alert (requirement 19).
        let presigned = try await flow.call(
            .POST, "/v1/evidence/presign", as: taraAgain,
            json: EvidencePresignRequest(incidentId: "app-incident-7", contentType: "text/plain")
        ).decode(EvidencePresigned.self)
        let note = Data("Two men at the depot door".utf8)
        let stored = try await flow.call(
            .PUT, presigned.uploadUrl, bytes: note, headers: [("content-type", "text/plain")])
        #expect(stored.status == 204, "\(stored.text)")
        // Finalized at the path the seed names (requirement 20), without `/v1`.
        let sealed = try await flow.call(
            .POST, "/evidence/finalize", as: taraAgain,
            json: EvidenceFinalizeRequest(
                incidentId: "app-incident-7", kind: .text, key: presigned.key, size: note.count,
                sha256: Hex.encode(SHA256.hash(data: note))))
        #expect(sealed.status == 200, "\(sealed.text)")
        let evidenceID = try sealed.decode(Evidence.self).id
        let incident = try #require(stillOne.first?.incidentId)
        var found: [Evidence] = []
        #expect(
            await flow.eventually {
                found =
                    (try? await flow.call(
                        .GET, "/v1/evidence?tenantId=\(tenant.tenant.id)&duressIncidentId=\(incident)", as: rita
                    ).decode(Page<Evidence>.self).items) ?? []
                return !found.isEmpty
            }, "the incident's evidence never listed")
        #expect(found.map(\.id) == [evidenceID] && found.first?.duressIncidentId == incident)
        await channel.stop()
        try alerts.close()
    }
}
