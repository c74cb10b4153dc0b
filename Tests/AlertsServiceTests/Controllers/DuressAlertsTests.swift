import Contracts
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import AlertsService

/// Duress alerts in alerts: the alert id a session locates, colleagues finding open
/// alerts around them, acknowledgements (PUSH, INAPP, NFC), tenants kept apart.
@Suite struct DuressAlertsTests {
    static let tenant = "7e7a0000-0000-4000-8000-000000000001"
    static let otherTenant = "7e7a0000-0000-4000-8000-000000000002"
    /// Under duress.
    static let tara = "00000000-0000-4000-8000-0000000000a1"
    /// Colleagues: Nia 300 m from Tara, Fay 5 km away, Nora signed in normally.
    static let nia = "00000000-0000-4000-8000-0000000000a2"
    static let fay = "00000000-0000-4000-8000-0000000000a3"
    static let nora = "00000000-0000-4000-8000-0000000000a4"
    /// Another tenant's customer, and a user of no tenant.
    static let oscar = "00000000-0000-4000-8000-0000000000b1"
    static let una = "00000000-0000-4000-8000-0000000000c1"
    /// Under duress too, 200 m from Tara.
    static let vera = "00000000-0000-4000-8000-0000000000a5"
    /// Tara's second and third sign-ins under the same incident.
    static let taraAgain = "00000000-0000-4000-8000-0000000001a1"
    static let taraThird = "00000000-0000-4000-8000-0000000002a1"
    /// The tenant's responder (staff, no PIN), and another tenant's.
    static let rita = "00000000-0000-4000-8000-0000000000d1"
    static let otto = "00000000-0000-4000-8000-0000000000d2"

    /// Auth's answers: session id = user id.
    static let sessions = Lookup<SessionState> { id in
        let refs = [tara: "TARA-1", nia: "NIA-7", fay: "FAY-3", nora: "NORA-2", oscar: "OSCAR-9", vera: "VERA-5"]
        switch id {
        case una: return SessionState(sessionId: id, userId: id, limited: false, roles: [])
        case taraAgain, taraThird:
            return SessionState(
                sessionId: id, userId: tara, limited: true, roles: [], tenantId: tenant, customerRef: "TARA-1")
        case rita, otto:
            return SessionState(
                sessionId: id, userId: id, limited: false,
                roles: [RoleGrant(role: .tenantResponder, tenantId: id == rita ? tenant : otherTenant)])
        case oscar:
            return SessionState(
                sessionId: id, userId: id, limited: false, roles: [], tenantId: otherTenant, customerRef: refs[id])
        default:
            guard let ref = refs[id] else { return nil }
            return SessionState(
                sessionId: id, userId: id, limited: id == tara || id == vera, roles: [], tenantId: tenant,
                customerRef: ref)
        }
    }

    static let taraPlace = GeoLocation(latitude: 51.5007, longitude: -0.1246)
    /// Metres → degrees of latitude (north of Tara).
    static func north(_ metres: Double) -> (Double, Double) {
        (taraPlace.latitude + metres / 111_195, taraPlace.longitude)
    }

    func raise(
        _ harness: ServiceHarness, at location: GeoLocation?, user: String = tara, session: String? = nil,
        reference: String = "TARA-1", incident: String = "1c1d0000-0000-4000-8000-000000000001"
    ) async throws {
        let envelope = EventEnvelope(
            id: UUID(), type: DuressRaised.eventType, source: .auth, occurredAt: harness.clock.now(),
            payload: DuressRaised(
                incidentId: incident, tenantId: Self.tenant, customerRef: reference, userId: user,
                sessionId: session ?? user,
                location: location, device: DeviceInfo(platform: "ios"), raisedAt: harness.clock.now()))
        let jobs = JobQueue(clock: harness.clock)
        try await harness.database().write { db in
            try AlertsStore.duressRaised(
                envelope, reach: AlertsStore.DuressReach(radius: 1000, positionMaxAge: 1800), jobs: jobs,
                now: harness.clock.now(), in: db)
        }
    }

    func nearby(
        _ client: any TestClientProtocol, _ token: String, at place: (Double, Double), radius: Int? = 1000
    )
        async throws -> TestResponse
    {
        let radius = radius.map { "&radius_m=\($0)" } ?? ""
        return try await client.get(
            "/v1/alerts/nearby?tenantKey=tk_live&lat=\(place.0)&lon=\(place.1)\(radius)&ts=1764000000000", token: token)
    }

    @Test func aDuressSessionsAlertIsFoundNearbyAndAcknowledgedOnceByEachColleague() async throws {
        let harness = try ServiceHarness(.alerts, sessions: Self.sessions)
        let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            var tokens: [String: String] = [:]
            for user in [Self.tara, Self.nia, Self.fay, Self.nora, Self.oscar, Self.una] {
                tokens[user] = try await harness.token(for: user, session: user)
            }
            let (tara, nia, fay, nora, oscar, una) = (
                tokens[Self.tara]!, tokens[Self.nia]!, tokens[Self.fay]!, tokens[Self.nora]!, tokens[Self.oscar]!,
                tokens[Self.una]!
            )
            // Tara's app locates her alert before auth's event has reached alerts; the event
            // (with the sign-in's older position) takes the same id and keeps the app's place.
            let request = DuressAlertRequest(
                sessionId: Self.tara, tenantKey: "tk_live", location: Self.taraPlace,
                device: DeviceInfo(platform: "ios"))
            let located = try await client.post("/v1/alerts/duress", request, token: tara)
            #expect(located.status == .ok)
            let alertID = try located.json(DuressAlertAccepted.self).alertId
            #expect(ObjectID.canonical(alertID) == alertID)
            try await raise(harness, at: GeoLocation(latitude: 48.85, longitude: 2.35))
            #expect(
                try await client.post("/v1/alerts/duress", request, token: tara).json(DuressAlertAccepted.self).alertId
                    == alertID)

            // Nia, 300 m away, sees it with a 1 km radius; Fay, 5 km away, only with 10 km.
            let seen = try await nearby(client, nia, at: Self.north(300)).json(NearbyAlerts.self).alerts
            #expect(seen.map(\.alertId) == [alertID])
            #expect(seen.first?.customerRef == "TARA-1")
            #expect(seen.first.map { abs($0.distanceM - 300) <= 1 } == true)
            // The banner's "View Map" (Transrify, requirement 26.4) has the alert's place in the row.
            #expect(seen.first?.location == Self.taraPlace)
            #expect(try await nearby(client, fay, at: Self.north(5_000)).json(NearbyAlerts.self).alerts.isEmpty)
            #expect(
                try await nearby(client, fay, at: Self.north(5_000), radius: 10_000).json(NearbyAlerts.self).alerts
                    .map(\.alertId) == [alertID])
            // The default radius is 1 km.
            #expect(
                try await nearby(client, nia, at: Self.north(300), radius: nil).json(NearbyAlerts.self).alerts.count
                    == 1)
            #expect(
                try await nearby(client, nia, at: Self.north(1_100), radius: nil).json(NearbyAlerts.self).alerts.isEmpty
            )
            // Never another tenant's alert, never to the person in duress.
            #expect(try await nearby(client, oscar, at: Self.north(10)).json(NearbyAlerts.self).alerts.isEmpty)
            #expect(try await nearby(client, tara, at: Self.north(10)).json(NearbyAlerts.self).alerts.isEmpty)
            #expect(try await nearby(client, una, at: Self.north(10)).status == .forbidden)

            // Radius bounds: 100 and 10,000 are allowed, nothing outside, whole metres only.
            #expect(
                try await nearby(client, nia, at: Self.north(99), radius: 100).json(NearbyAlerts.self).alerts.count == 1
            )
            #expect(
                try await nearby(client, nia, at: Self.north(101), radius: 100).json(NearbyAlerts.self).alerts.isEmpty)
            for radius in [99, 10_001, 0, -5] {
                let refused = try await nearby(client, nia, at: Self.north(10), radius: radius)
                #expect(refused.status == .badRequest)
                #expect(refused.error?.code == .validationFailed)
            }
            for query in [
                "lat=51.5&radius_m=1000", "lat=91&lon=0", "lat=51.5&lon=abc", "lat=51.5&lon=0&radius_m=150.5",
            ] {
                #expect(try await client.get("/v1/alerts/nearby?\(query)", token: nia).status == .badRequest)
            }

            // Acknowledgements: once per responder, the first one stands.
            let first = try await client.post(
                "/v1/alerts/ack", AlertAcknowledgementRequest(alertId: alertID, customerRef: "NIA-7", method: .inApp),
                token: nia)
            #expect(first.status == .ok)
            let acknowledged = try first.json(AlertAcknowledgement.self)
            #expect(acknowledged.customerRef == "NIA-7" && acknowledged.method == .inApp)
            harness.clock.advance(by: 30)
            let again = try await client.post(
                "/v1/alerts/ack", AlertAcknowledgementRequest(alertId: alertID, method: .push), token: nia)
            #expect(try again.json(AlertAcknowledgement.self) == acknowledged)
            // The recorded reference is the session's, whatever the body says.
            let pretending = try await client.post(
                "/v1/alerts/ack",
                AlertAcknowledgementRequest(alertId: alertID, customerRef: "SOMEONE-ELSE", method: .nfc, payload: nil),
                token: fay)
            #expect(pretending.error?.code == .validationFailed)
            let wrongTag = try await client.post(
                "/v1/alerts/ack",
                AlertAcknowledgementRequest(
                    alertId: alertID, method: .nfc, payload: "trf:duress:\(UUID().uuidString.lowercased())"),
                token: fay)
            #expect(wrongTag.status == .badRequest)
            #expect(wrongTag.error?.code == .nfcPayloadMismatch)
            let tapped = try await client.post(
                "/v1/alerts/ack",
                AlertAcknowledgementRequest(
                    alertId: alertID, customerRef: "SOMEONE-ELSE", method: .nfc,
                    payload: "trf:duress:\(alertID.uppercased())"),
                token: fay)
            #expect(tapped.status == .ok)
            #expect(try tapped.json(AlertAcknowledgement.self).customerRef == "FAY-3")

            // Another tenant, the person in duress, an unknown or malformed id: refused.
            for (token, id) in [(oscar, alertID), (tara, alertID), (nia, UUID().uuidString.lowercased())] {
                let refused = try await client.post(
                    "/v1/alerts/ack", AlertAcknowledgementRequest(alertId: id, method: .inApp), token: token)
                #expect(refused.status == .notFound)
            }
            #expect(
                try await client.post(
                    "/v1/alerts/ack", AlertAcknowledgementRequest(alertId: "nope", method: .inApp), token: nia
                ).status == .badRequest)

            // The tenant's responder sees the alert, its place and who acknowledged it; another
            // tenant's responder, or a colleague without the role, does not.
            let rita = try await harness.token(for: Self.rita, session: Self.rita)
            let listed = try await client.get("/v1/alerts/duress?tenantId=\(Self.tenant)", token: rita)
                .json(Page<DuressAlertState>.self).items
            #expect(listed.map(\.alertId) == [alertID])
            #expect(listed.first?.location == Self.taraPlace && listed.first?.resolvedAt == nil)
            #expect(listed.first?.acknowledgements.map(\.customerRef) == ["NIA-7", "FAY-3"])
            let otto = try await harness.token(for: Self.otto, session: Self.otto)
            #expect(try await client.get("/v1/alerts/duress?tenantId=\(Self.tenant)", token: otto).status == .notFound)
            #expect(try await client.get("/v1/alerts/duress?tenantId=\(Self.tenant)", token: nia).status == .notFound)
            #expect(
                try await client.get("/v1/alerts/duress?tenantId=\(Self.tenant)&status=bogus", token: rita).status
                    == .badRequest)

            // Colleagues see who acknowledged, first first.
            let state = try await nearby(client, nia, at: Self.north(300)).json(NearbyAlerts.self).alerts
            #expect(state.first?.acknowledgements.map(\.customerRef) == ["NIA-7", "FAY-3"])
            #expect(state.first?.acknowledgements.map(\.method) == [.inApp, .nfc])

            // Nora is not under duress: her call answers alike and raises nothing anyone sees.
            let decoy = try await client.post(
                "/v1/alerts/duress",
                DuressAlertRequest(sessionId: Self.nora, tenantKey: "tk_live", location: Self.taraPlace), token: nora)
            #expect(decoy.status == located.status)
            #expect(decoy.headers[.contentType] == located.headers[.contentType])
            #expect(decoy.body.readableBytes == located.body.readableBytes)
            let decoyID = try decoy.json(DuressAlertAccepted.self).alertId
            #expect(ObjectID.canonical(decoyID) == decoyID && decoyID != alertID)
            // Where no colleague is in duress, Tara's /nearby answer is byte for byte Nora's.
            let far = (48.8566, 2.3522)
            let taras = try await nearby(client, tara, at: far)
            let noras = try await nearby(client, nora, at: far)
            #expect(taras.status == noras.status && taras.headers[.contentType] == noras.headers[.contentType])
            #expect(Data(taras.body.readableBytesView) == Data(noras.body.readableBytesView))
            #expect(
                try await nearby(client, nia, at: Self.north(300)).json(NearbyAlerts.self).alerts.map(\.alertId) == [
                    alertID
                ])
            #expect(
                try await client.post(
                    "/v1/alerts/ack", AlertAcknowledgementRequest(alertId: decoyID, method: .inApp), token: nia
                ).status == .notFound)

            // The body must name the caller's own session and the kind DURESS.
            for bad in [
                DuressAlertRequest(sessionId: Self.nia, tenantKey: "tk_live"),
                DuressAlertRequest(sessionId: Self.nora, tenantKey: "tk_live", alertKind: "PANIC"),
            ] {
                #expect(try await client.post("/v1/alerts/duress", bad, token: nora).status == .badRequest)
            }
            #expect(
                try await client.post(
                    "/v1/alerts/duress", DuressAlertRequest(sessionId: Self.una, tenantKey: "tk_live"), token: una
                ).status == .forbidden)
        }
    }

    @Test func colleaguesLastSeenNearAreNotifiedOnceTheAlertHasAPlaceAndCannotTurnItOff() async throws {
        let harness = try ServiceHarness(.alerts, sessions: Self.sessions)
        let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            // Nora was last seen next to Tara, but 31 minutes before: too long ago to count.
            let nora = try await harness.token(for: Self.nora, session: Self.nora)
            #expect(try await nearby(client, nora, at: Self.north(20)).status == .ok)
            harness.clock.advance(by: 31 * 60)
            var tokens: [String: String] = [:]
            for user in [Self.tara, Self.nia, Self.fay, Self.oscar] {
                tokens[user] = try await harness.token(for: user, session: user)
            }
            _ = try await nearby(client, tokens[Self.nia]!, at: Self.north(300))
            _ = try await nearby(client, tokens[Self.fay]!, at: Self.north(5_000))
            _ = try await nearby(client, tokens[Self.oscar]!, at: Self.north(10))
            // Nia's phone takes pushes (a user without a device gets no push job).
            let phone = DeviceRegistration(
                provider: .apns, token: String(repeating: "ab", count: 32), bundleId: "com.example.transrify",
                environment: .production)
            #expect(try await client.post("/v1/devices", phone, token: tokens[Self.nia]!).status == .created)
            // Vera, 200 m away, is in duress herself (far from here, she raised an alert of her
            // own): like /nearby, the live channel tells her nothing.
            let vera = try await harness.token(for: Self.vera, session: Self.vera)
            try await raise(
                harness, at: GeoLocation(latitude: 40.0, longitude: -3.7), user: Self.vera, reference: "VERA-5",
                incident: "1c1d0000-0000-4000-8000-000000000005")
            _ = try await nearby(client, vera, at: Self.north(200))

            func notified() throws -> [String: [String]] {
                try harness.database().read { db in
                    Dictionary(
                        grouping: try Row.fetchAll(
                            db,
                            sql: "SELECT user_id, type, title, body, link FROM notification ORDER BY user_id, rowid"),
                        by: { $0["user_id"] as String }
                    ).mapValues { rows in
                        rows.map {
                            "\($0["type"] as String)|\($0["title"] as String)|\($0["body"] as String)|\($0["link"] as String)"
                        }
                    }
                }
            }
            // Raised at sign-in without a place: nobody can be told who is near.
            try await raise(harness, at: nil)
            #expect(try notified().isEmpty)
            let located = try await client.post(
                "/v1/alerts/duress",
                DuressAlertRequest(sessionId: Self.tara, tenantKey: "tk_live", location: Self.taraPlace),
                token: tokens[Self.tara]!)
            #expect(located.status == .ok, "\(String(buffer: located.body))")
            let alertID = try located.json(DuressAlertAccepted.self).alertId
            let expected = "duress_alert|Nearby Duress Alert|Customer TARA-1 needs help|/alerts/\(alertID)"
            #expect(try notified() == [Self.nia: [expected]])
            // Located again: nobody is told twice.
            _ = try await client.post(
                "/v1/alerts/duress",
                DuressAlertRequest(sessionId: Self.tara, tenantKey: "tk_live", location: Self.taraPlace),
                token: tokens[Self.tara]!)
            #expect(try notified() == [Self.nia: [expected]])
            let jobs = try await harness.database().read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM kit_job WHERE kind = 'push.notification'") ?? 0
            }
            #expect(jobs == 1)

            // Fay acknowledges: Nia, who was told of the alert, hears who is responding.
            #expect(
                try await client.post(
                    "/v1/alerts/ack", AlertAcknowledgementRequest(alertId: alertID, method: .inApp),
                    token: tokens[Self.fay]!
                ).status == .ok)
            let responding =
                "duress_acknowledged|Duress alert acknowledged|FAY-3 is responding to TARA-1|/alerts/\(alertID)"
            #expect(try notified() == [Self.nia: [expected, responding]])

            // The incident is cleared: the alert closes, Nia hears so, nothing more can be acked.
            let cleared = EventEnvelope(
                id: UUID(), type: DuressCleared.eventType, source: .auth, occurredAt: harness.clock.now(),
                payload: DuressCleared(
                    incidentId: "1c1d0000-0000-4000-8000-000000000001", tenantId: Self.tenant,
                    clearedAt: harness.clock.now()))
            for _ in 0..<2 {
                try await harness.database().write { db in
                    try AlertsStore.duressCleared(cleared, jobs: JobQueue(clock: harness.clock), in: db)
                }
            }
            // Who was told is found by index, not by reading every notification.
            let plan = try await harness.database().read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        EXPLAIN QUERY PLAN SELECT DISTINCT user_id FROM notification
                        WHERE type = 'duress_alert' AND json_extract(data, '$.alertId') = ? ORDER BY user_id
                        """, arguments: [alertID]
                ).map { $0["detail"] as String }
            }
            #expect(plan.contains { $0.contains("USING INDEX notification_by_duress_alert") }, "\(plan)")
            let safe = "duress_cleared|Duress alert resolved|Customer TARA-1 is safe|/alerts/\(alertID)"
            #expect(try notified() == [Self.nia: [expected, responding, safe]])
            #expect(
                try await nearby(client, tokens[Self.nia]!, at: Self.north(300)).json(NearbyAlerts.self).alerts.isEmpty)
            #expect(
                try await client.post(
                    "/v1/alerts/ack", AlertAcknowledgementRequest(alertId: alertID, method: .inApp),
                    token: tokens[Self.nia]!
                ).status == .notFound)

            // A critical type stays on: turning it off is refused, and the centre says so.
            let off = try await client.send(
                .put, "/v1/me/notification-preferences", NotificationPreferences(push: ["duress_alert": false]),
                token: tokens[Self.nia]!)
            #expect(off.status == .badRequest)
            let preferences = try await client.get("/v1/me/notification-preferences", token: tokens[Self.nia]!)
                .json(NotificationPreferences.self)
            #expect(preferences.push["duress_alert"] == true)
        }
    }

    /// Transrify: a customer who signs in again and again under duress is one person in
    /// danger, so colleagues see one alert, at the latest place; a colleague who polls after
    /// the raise is told, once.
    @Test func oneIncidentIsOneAlertAtItsLatestPlaceAndColleaguesWhoPollLaterAreTold() async throws {
        let harness = try ServiceHarness(.alerts, sessions: Self.sessions)
        let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            var tokens: [String: String] = [:]
            for session in [Self.tara, Self.taraAgain, Self.taraThird, Self.nia, Self.fay] {
                tokens[session] = try await harness.token(
                    for: [Self.taraAgain, Self.taraThird].contains(session) ? Self.tara : session, session: session)
            }
            func told(_ user: String) throws -> [String] {
                try harness.database().read { db in
                    try String.fetchAll(
                        db, sql: "SELECT type || ' ' || link FROM notification WHERE user_id = ? ORDER BY rowid",
                        arguments: [user])
                }
            }
            // Nia was last seen 5 km away when Tara first signed in under duress, at her place.
            _ = try await nearby(client, tokens[Self.nia]!, at: Self.north(5_000))
            try await raise(harness, at: Self.taraPlace)
            let alertID = try await client.post(
                "/v1/alerts/duress", DuressAlertRequest(sessionId: Self.tara, tenantKey: "tk_live", location: nil),
                token: tokens[Self.tara]!
            ).json(DuressAlertAccepted.self).alertId
            #expect(try told(Self.nia).isEmpty)

            // She signs in again: the app locates its session 100 m north before auth's event
            // comes, then a third time with the place in the sign-in itself (event first).
            let again = try await client.post(
                "/v1/alerts/duress",
                DuressAlertRequest(
                    sessionId: Self.taraAgain, tenantKey: "tk_live",
                    location: GeoLocation(latitude: Self.north(100).0, longitude: Self.north(100).1)),
                token: tokens[Self.taraAgain]!)
            let secondName = try again.json(DuressAlertAccepted.self).alertId
            try await raise(harness, at: nil, session: Self.taraAgain)
            let latest = GeoLocation(latitude: Self.north(150).0, longitude: Self.north(150).1)
            try await raise(harness, at: latest, session: Self.taraThird)
            let third = try await client.post(
                "/v1/alerts/duress", DuressAlertRequest(sessionId: Self.taraThird, tenantKey: "tk_live", location: nil),
                token: tokens[Self.taraThird]!
            ).json(DuressAlertAccepted.self).alertId
            #expect(third == alertID)
            let rows = try await harness.database().read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM duress_alert") ?? 0
            }
            #expect(rows == 1)

            // Nia comes within reach and polls: one alert, at the latest place, and she is told
            // of it now (once, however often she polls).
            for _ in 0..<2 {
                let seen = try await nearby(client, tokens[Self.nia]!, at: Self.north(400)).json(NearbyAlerts.self)
                #expect(seen.alerts.map(\.alertId) == [alertID])
                #expect(seen.alerts.first?.location == latest)
                #expect(seen.alerts.first.map { abs($0.distanceM - 250) <= 1 } == true)
            }
            #expect(try told(Self.nia) == ["duress_alert /alerts/\(alertID)"])
            // The list of the tenant's alerts agrees: one.
            let staff = try await harness.token(for: Self.rita, session: Self.rita)
            let listed = try await client.get("/v1/alerts/duress?tenantId=\(Self.tenant)", token: staff)
                .json(Page<DuressAlertState>.self)
            #expect(listed.items.map(\.alertId) == [alertID])

            // The second session's phone shows its own name of the alert on its NFC tag: Nia's
            // tap acknowledges the one alert; a tag naming something else is refused.
            let wrong = try await client.post(
                "/v1/alerts/ack",
                AlertAcknowledgementRequest(alertId: alertID, method: .nfc, payload: "trf:duress:\(UUID())"),
                token: tokens[Self.nia]!)
            #expect(wrong.status == .badRequest)
            let tapped = try await client.post(
                "/v1/alerts/ack",
                AlertAcknowledgementRequest(alertId: alertID, method: .nfc, payload: "trf:duress:\(secondName)"),
                token: tokens[Self.nia]!)
            #expect(tapped.status == .ok, "\(String(buffer: tapped.body))")
        }
    }

    @Test func aLiveStreamOpenedWithAPlaceRecordsItLikeAPoll() async throws {
        // A stream whose client left ends at the next heartbeat: one a second, not 25.
        let harness = try ServiceHarness(
            .alerts, config: ["alerts.stream.heartbeatSeconds": "1"], sessions: Self.sessions)
        let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts, live: true) { client in
            let nia = try await harness.token(for: Self.nia, session: Self.nia)
            let base = "http://127.0.0.1:\(client.port!)/v1/notifications/stream"
            let place = Self.north(300)
            // Tara's alert was raised before Nia was ever seen: the place her stream opens
            // with is within reach, so the stream tells her of it.
            try await raise(harness, at: Self.taraPlace)
            // A HEAD of the same stream, or of a poll, is safe: it records no place.
            let head = try await client.execute(
                uri: "/v1/notifications/stream?lat=\(place.0)&lon=\(place.1)", method: .head,
                headers: [.authorization: "Bearer \(nia)"])
            #expect(head.status == .ok && head.headers[.contentType] == "text/event-stream")
            let headOfPoll = try await client.execute(
                uri: "/v1/alerts/nearby?lat=\(place.0)&lon=\(place.1)", method: .head,
                headers: [.authorization: "Bearer \(nia)"])
            #expect(headOfPoll.status == .ok && headOfPoll.body.readableBytes == 0)
            let recordedByHead = try await harness.database().read { db in
                try Int.fetchOne(
                    db, sql: "SELECT COUNT(*) FROM responder_position WHERE user_id = ?", arguments: [Self.nia])
            }
            #expect(recordedByHead == 0)
            let stream = try await EventStreamReader(url: base + "?lat=\(place.0)&lon=\(place.1)", token: nia)
            #expect(stream.status == 200)
            var told = false
            for _ in 0..<100 where !told {
                told = stream.events.contains { $0.data.contains("\"duress_alert\"") }
                if !told { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(told, "\(stream.events.map(\.data))")
            let recorded = try harness.database().read { db in
                try Row.fetchOne(
                    db, sql: "SELECT tenant_id, latitude FROM responder_position WHERE user_id = ?",
                    arguments: [Self.nia])
            }
            #expect(recorded?["tenant_id"] == Self.tenant)
            #expect((recorded?["latitude"] as Double?).map { abs($0 - place.0) < 1e-9 } == true)
            await stream.stop()
            // A place that is not one is refused before the stream opens.
            let refused = try await EventStreamReader(url: base + "?lat=91&lon=0", token: nia)
            #expect(refused.status == 400)
            await refused.stop()
        }
    }

    @Test func anEndedSessionForgetsItsAlertIdAndADeletedUserTakesTheirTraces() async throws {
        let harness = try ServiceHarness(.alerts, sessions: Self.sessions)
        let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            let tara = try await harness.token(for: Self.tara, session: Self.tara)
            let nia = try await harness.token(for: Self.nia, session: Self.nia)
            let request = DuressAlertRequest(sessionId: Self.tara, tenantKey: "tk_live", location: Self.taraPlace)
            let alertID = try await client.post("/v1/alerts/duress", request, token: tara).json(
                DuressAlertAccepted.self
            ).alertId
            try await raise(harness, at: nil)
            _ = try await nearby(client, nia, at: Self.north(300))
            #expect(
                try await client.post(
                    "/v1/alerts/ack", AlertAcknowledgementRequest(alertId: alertID, method: .inApp), token: nia
                ).status == .ok)

            let database = try harness.database()
            func count(_ table: String) throws -> Int {
                try database.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? 0 }
            }
            let ended = EventEnvelope(
                id: UUID(), type: SessionEnded.eventType, source: .auth, occurredAt: harness.clock.now(),
                payload: SessionEnded(userId: Self.tara, sessionIds: [Self.tara], reason: .logout))
            try await database.write { db in try AlertsStore.sessionEnded(ended, in: db) }
            #expect(try count("duress_session") == 0)
            #expect(try count("duress_alert") == 1)

            try await database.write { db in try AlertsStore.erase(userID: Self.nia, in: db) }
            #expect(try count("duress_ack") == 0)
            #expect(try count("responder_position") == 0)
            try await database.write { db in try AlertsStore.erase(userID: Self.tara, in: db) }
            #expect(try count("duress_alert") == 0)
        }
    }
}
