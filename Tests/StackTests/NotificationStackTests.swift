import Foundation
import GRDB
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

/// Notifications across the real executables: one user with an APNs, an FCM and an Expo
/// device and a live stream through the gateway; friend requests from streak; alerts killed
/// with SIGKILL between two of them. Every push reaches each fake once, and the stream,
/// reopened with the last id it saw, misses nothing and repeats nothing. Then, on the same
/// stack (its executables run under libfaketime), two weeks of StreakSnap with moved clocks
/// (``StreakStoryFlow``), Transrify's duress alerts (``DuressStoryFlow``) and one whole
/// SkateHubba challenge (``SkateHubbaStoryFlow``), an Agora session (``AgoraStoryFlow``) and
/// a moderator's day in the console, in Chromium (``ModerationStoryFlow``).
extension StackTests {
    @Test func pushesAndTheLiveStreamSurviveAKilledAlertsWithNothingLostOrDoubledAndTwoWeeksOfStreaks() async throws {
        let fakeDirectory = try TestDataDirectory.make()
        defer { fakeDirectory.remove() }
        let fake = try await FakePushProviders.start(directory: fakeDirectory)
        // Agora's devices attest under a test App Attest root, and posting needs it.
        let app = try AppAttestFixture()
        let attestRoot = fakeDirectory.url.appendingPathComponent("app-attest-root.pem")
        try Data(try app.rootPEM.utf8).write(to: attestRoot)
        let settings: [String: String] = [
            "alerts.apns.keyFile": fake.apnsKeyFile.path, "alerts.apns.keyId": fake.keyID,
            "alerts.apns.teamId": fake.teamID, "alerts.apns.sandboxUrl": fake.url,
            "alerts.apns.productionUrl": fake.url, "alerts.apns.criticalAlerts": "true",
            "alerts.fcm.serviceAccountFile": fake.serviceAccountFile.path,
            "alerts.fcm.baseUrl": fake.url, "alerts.expo.enabled": "true", "alerts.expo.baseUrl": fake.url,
            "alerts.expo.receiptDelaySeconds": "1", "alerts.push.trustRootsFile": fake.caFile.path,
            "auth.revenuecat.webhookSecret": StreakStoryFlow.webhookSecret,
            "auth.appAttest.appIds": app.appID, "auth.appAttest.rootCertificateFile": attestRoot.path,
            "feed.requireAttestation": "true", "feed.attestationMaxAgeSeconds": "3600",
        ]
        let stack = try await Stack.start(
            publicTLS: true, fakeClock: true,
            environment: Dictionary(
                uniqueKeysWithValues: settings.map { (ConfigKeys.environmentName($0.key), $0.value) }))
        do {
            try await stack.run { stack in
                let flow = SliceFlow(stack: stack, document: try OpenAPIDocument.load())
                try await NotificationFlow(flow: flow, fake: fake).run()
                try await StreakStoryFlow(flow: flow, fake: fake).run()
                try await DuressStoryFlow(flow: flow, fake: fake).run()
                try await SkateHubbaStoryFlow(flow: flow, fake: fake).run()
                try await AgoraStoryFlow(flow: flow, app: app).run()
                try await AgoraPrivateFlow(flow: flow, fake: fake, app: app).run()
                try await ModerationStoryFlow(flow: flow, app: app).run()
            }
        } catch {
            await fake.stop()
            throw error
        }
        await fake.stop()
    }
}

struct NotificationFlow {
    let flow: SliceFlow
    let fake: FakePushProviders
    var stack: Stack { flow.stack }

    /// The notification a push was for, whichever provider carried it.
    static func notificationID(of push: FakePushProviders.Push) -> String? {
        switch push.provider {
        case "apns": push.headers["apns-collapse-id"]
        case "fcm": (push.body["data"] as? [String: any Sendable])?["notificationId"] as? String
        default: (push.body["data"] as? [String: any Sendable])?["notificationId"] as? String
        }
    }

    func stream(_ person: Person, after id: String? = nil) async throws -> EventStreamReader {
        let reader = try await EventStreamReader(
            url: stack.url("/v1/notifications/stream" + (id.map { "?after=\($0)" } ?? "")), token: person.token,
            dataDirectory: stack.directory.url)
        #expect(reader.status == 200 && reader.contentType == "text/event-stream")
        return reader
    }

    func message(_ event: EventStreamReader.Event) throws -> NotificationStreamMessage {
        try JSONCoding.decoder().decode(NotificationStreamMessage.self, from: Data(event.data.utf8))
    }

    func befriend(_ from: Person, _ to: Person) async throws {
        let sent = try await flow.acknowledged(
            .POST, "/v1/friends/requests", as: from, json: FriendRequestCreate(userId: to.id),
            headers: [("idempotency-key", "friend-\(from.id)-\(to.id)")])
        #expect(sent.status == 201, "\(sent.text)")
    }

    func run() async throws {
        let alice = try await flow.signUp("Alice")
        let bob = try await flow.signUp("Bob")
        let carol = try await flow.signUp("Carol")
        let dave = try await flow.signUp("Dave")
        let tokens = (
            apns: String(repeating: "c0ffee", count: 12) + "0123",
            fcm: "fcm:APA91b" + String(repeating: "Zk8_-q", count: 20),
            expo: "ExponentPushToken[alice-stack-0001]"
        )
        for registration in [
            DeviceRegistration(
                provider: .apns, token: tokens.apns, bundleId: "com.example.streaksnap", environment: .production),
            DeviceRegistration(provider: .fcm, token: tokens.fcm, platform: "android"),
            DeviceRegistration(provider: .expo, token: tokens.expo),
        ] {
            let registered = try await flow.call(.POST, "/v1/devices", as: alice, json: registration)
            #expect(registered.status == 201, "\(registered.text)")
        }

        // Alice's phone holds the stream open through the gateway as server-sent events (HTTP/2,
        // TLS), her tablet as a WebSocket (HTTP/1.1 upgrade, TLS).
        let first = try await stream(alice)
        #expect(await first.waitFor(1))
        #expect(try message(first.events[0]) == NotificationStreamMessage(type: .unread, unreadCount: 0))
        let tls = try TestHTTP.tlsConfiguration(dataDirectory: stack.directory.url)
        let socketURL = stack.url("/v1/notifications/stream").replacingOccurrences(of: "https://", with: "wss://")
        let tablet = LiveSocket(url: socketURL, token: alice.token, tls: tls, serverName: "localhost")
        #expect(await tablet.waitFor(1), "\(tablet.failure ?? "") \(String(describing: tablet.closeCode))")

        // Bob asks: the stream hears it, and each provider gets one push.
        try await befriend(bob, alice)
        #expect(await first.waitFor(2, timeout: .seconds(30)))
        let fromBob = try message(first.events[1])
        let bobsID = try #require(fromBob.notification?.id)
        #expect(first.events[1].id == bobsID && fromBob.unreadCount == 1)
        #expect(fromBob.notification?.link == "/friends/requests")
        #expect(await tablet.waitFor(2))
        #expect(
            try tablet.messages.map {
                try JSONCoding.decoder().decode(NotificationStreamMessage.self, from: Data($0.utf8))
            }
            .map(\.notification?.id) == [nil, bobsID])
        #expect(await flow.eventually { fake.pushes.count >= 3 })
        #expect(fake.pushes.map(\.provider).sorted() == ["apns", "expo", "fcm"])
        #expect(fake.pushes.allSatisfy { Self.notificationID(of: $0) == bobsID })
        #expect(fake.pushes.first { $0.provider == "apns" }?.token == tokens.apns)
        // A provider has the push before alerts has recorded its answer; a kill in between
        // would (rightly) push again. Kill only once all three answers are on disk.
        let alerts = try DatabaseQueue(path: stack.directory.url.appendingPathComponent("alerts/alerts.sqlite").path)
        #expect(
            await flow.eventually {
                let recorded = try? await alerts.read { db in
                    try Int.fetchOne(
                        db, sql: "SELECT count(*) FROM push_delivery WHERE notification_id = ?", arguments: [bobsID])
                }
                return recorded == 3
            })

        // alerts dies: the stream breaks; Carol's request waits in streak's outbox meanwhile.
        await stack.kill(.alerts)
        #expect(await flow.eventually { first.ended })
        // The WebSocket closes with 1013 (try again later).
        #expect(await tablet.waitForEnd(timeout: .seconds(30)))
        #expect(tablet.closeCode == 1013)
        try await befriend(carol, alice)
        try stack.launch(.alerts)
        #expect(await stack.waitUntilReady(.alerts))

        // Reopened with the last id it saw: Carol's arrives (replayed or live), Bob's does not
        // come again, and the count is right.
        let second = try await stream(alice, after: bobsID)
        #expect(await flow.eventually { second.events.contains { $0.name == "notification" } })
        let carols = try #require(second.events.first { $0.name == "notification" })
        let carolsID = try #require(carols.id)
        #expect(carolsID != bobsID)
        #expect(try message(carols).notification?.body == "Carol wants to be friends")
        #expect(second.events.allSatisfy { $0.id != bobsID })
        let tabletAgain = LiveSocket(
            url: socketURL + "?after=\(bobsID)", token: alice.token, tls: tls, serverName: "localhost")
        #expect(await tabletAgain.waitFor(2))
        let replayed = try tabletAgain.messages.map {
            try JSONCoding.decoder().decode(NotificationStreamMessage.self, from: Data($0.utf8))
        }
        #expect(replayed.first?.notification?.id == carolsID)
        #expect(replayed.allSatisfy { $0.notification?.id != bobsID })

        // Each provider has each notification exactly once, and no more come.
        #expect(await flow.eventually { fake.pushes.count >= 6 })
        try await Task.sleep(for: .seconds(3))
        let pushes = fake.pushes
        #expect(pushes.count == 6, "\(pushes.map { "\($0.provider) \(Self.notificationID(of: $0) ?? "?")" })")
        for provider in ["apns", "fcm", "expo"] {
            let ids = pushes.filter { $0.provider == provider }.compactMap(Self.notificationID)
            #expect(ids.sorted() == [bobsID, carolsID].sorted(), "\(provider)")
        }

        // alerts dies in the middle of a delivery: FCM and Expo have acknowledged (and that is
        // on disk), APNs is still answering. After the restart only APNs is pushed again,
        // under the same collapse id, so the phone shows it once.
        fake.stall("apns", for: .seconds(3))
        try await befriend(dave, alice)
        var davesID: String?
        #expect(
            await flow.eventually {
                davesID = try? await alerts.read { db in
                    try String.fetchOne(
                        db,
                        sql: """
                            SELECT notification_id FROM push_delivery WHERE notification_id NOT IN (?, ?)
                            GROUP BY notification_id HAVING group_concat(provider) IN ('expo,fcm', 'fcm,expo')
                            """, arguments: [bobsID, carolsID])
                }
                return davesID != nil
            })
        await stack.kill(.alerts)
        fake.stall("apns", for: .zero)
        try stack.launch(.alerts)
        #expect(await stack.waitUntilReady(.alerts))
        let daves = try #require(davesID)
        #expect(
            await flow.eventually {
                fake.pushes.contains { $0.provider == "apns" && Self.notificationID(of: $0) == daves }
            })
        try await Task.sleep(for: .seconds(2))
        let forDave = fake.pushes.filter { Self.notificationID(of: $0) == daves }
        #expect(forDave.filter { $0.provider == "fcm" }.count == 1)
        #expect(forDave.filter { $0.provider == "expo" }.count == 1)
        #expect((1...2).contains(forDave.filter { $0.provider == "apns" }.count))
        await first.stop()
        await second.stop()
        await tabletAgain.stop()
    }
}
