import Crypto
import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import AlertsService

/// Push delivery against local fakes of APNs, FCM and Expo speaking their real protocols (APNs
/// and FCM over HTTP/2 with TLS), driven by running the alerts job runner by hand.
@Suite(.serialized) struct PushDeliveryTests {
    static let alice = "00000000-0000-4000-8000-00000000000a"
    static let bob = "00000000-0000-4000-8000-00000000000b"
    static let apnsToken = String(repeating: "a1", count: 32)
    static let fcmToken = "fcm:APA91b" + String(repeating: "Zq9_-x", count: 20)
    static let expoToken = "ExponentPushToken[alice-phone-0001]"

    /// Alerts with every provider pointed at `fake`, and its job runner.
    struct Setup: Sendable {
        let harness: ServiceHarness
        let runner: JobRunner
        let push: PushClients
        let fake: FakePushProviders

        /// Starts the fakes and alerts' router, runs `body` with a client of the router, then stops
        /// the fakes and the providers' HTTP client.
        static func run(_ body: @escaping @Sendable (Setup, any TestClientProtocol) async throws -> Void) async throws {
            let fakeDirectory = try TestDataDirectory.make()
            defer { fakeDirectory.remove() }
            let fake = try await FakePushProviders.start(directory: fakeDirectory)
            let harness = try ServiceHarness(
                .alerts,
                config: [
                    "alerts.apns.keyFile": fake.apnsKeyFile.path, "alerts.apns.keyId": fake.keyID,
                    "alerts.apns.teamId": fake.teamID, "alerts.apns.sandboxUrl": fake.url,
                    "alerts.apns.productionUrl": fake.url,
                    "alerts.fcm.serviceAccountFile": fake.serviceAccountFile.path,
                    "alerts.fcm.baseUrl": fake.url, "alerts.expo.enabled": "true", "alerts.expo.baseUrl": fake.url,
                    "alerts.expo.receiptDelaySeconds": "60", "alerts.push.trustRootsFile": fake.caFile.path,
                ])
            let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
            let runner = try #require(parts.services.compactMap { $0 as? JobRunner }.first)
            let push = try #require(parts.services.compactMap { $0 as? PushClients }.first)
            let setup = Setup(harness: harness, runner: runner, push: push, fake: fake)
            do {
                try await harness.test(parts) { client in try await body(setup, client) }
            } catch {
                try? await push.http.shutdown()
                await fake.stop()
                throw error
            }
            try? await push.http.shutdown()
            await fake.stop()
        }

        /// Why the jobs waiting for another attempt failed the last one.
        func retryReasons() async throws -> [String] {
            try await harness.database().read { db in
                try String.fetchAll(
                    db,
                    sql: "SELECT DISTINCT last_error FROM kit_job WHERE last_error IS NOT NULL AND failed_at IS NULL")
            }
        }

        /// Registers Alice's three devices (one per provider).
        func registerAlicesDevices(_ client: any TestClientProtocol) async throws -> String {
            let alice = try await harness.token(for: PushDeliveryTests.alice)
            let registrations = [
                DeviceRegistration(
                    provider: .apns, token: PushDeliveryTests.apnsToken, bundleId: "com.example.skatehubba",
                    environment: .sandbox),
                DeviceRegistration(provider: .fcm, token: PushDeliveryTests.fcmToken, platform: "android"),
                DeviceRegistration(provider: .expo, token: PushDeliveryTests.expoToken),
            ]
            for registration in registrations {
                #expect(try await client.post("/v1/devices", registration, token: alice).status == .created)
            }
            return alice
        }

        /// Bob's friend request to Alice, applied as alerts' inbox does; returns the notification id.
        @discardableResult
        func friendRequest(id: UUID = UUID(), from: String = PushDeliveryTests.bob) async throws -> String {
            let envelope = EventEnvelope(
                id: id, type: FriendRequestSent.eventType, source: .streak, occurredAt: harness.clock.now(),
                payload: FriendRequestSent(
                    requestId: UUID().uuidString.lowercased(), fromUserId: from, fromDisplayName: "Bob",
                    toUserId: PushDeliveryTests.alice))
            let jobs = JobQueue(clock: harness.clock)
            try await harness.database().write { db in try AlertsStore.friendRequestSent(envelope, jobs: jobs, in: db) }
            return id.uuidString.lowercased()
        }

        func devices() throws -> [String] {
            try harness.database().read { db in
                try String.fetchAll(db, sql: "SELECT provider FROM device ORDER BY provider")
            }
        }
    }

    @Test func aNotificationReachesAPNsFCMAndExpoOnceEachWithItsLinkAndBadge() async throws {
        try await Setup.run { setup, client in
            _ = try await setup.registerAlicesDevices(client)
            let id = try await setup.friendRequest()
            // A provider that cannot be reached in time (a loaded CI machine) is retried later, as
            // in production: run until each has answered, then check none had it twice.
            await setup.runner.runDue()
            for _ in 0..<5 where setup.fake.pushes.count < 3 {
                setup.harness.clock.advance(by: 61)
                await setup.runner.runDue()
            }
            let pushes = setup.fake.pushes
            #expect(pushes.map(\.provider).sorted() == ["apns", "expo", "fcm"])

            let apns = try #require(pushes.first { $0.provider == "apns" })
            #expect(apns.token == Self.apnsToken)
            #expect(apns.http2)
            #expect(apns.headers["apns-topic"] == "com.example.skatehubba")
            #expect(apns.headers["apns-priority"] == "10")
            #expect(apns.headers["apns-collapse-id"] == id)
            #expect(apns.headers["apns-expiration"].flatMap(Int.init) ?? 0 > Int(Date().timeIntervalSince1970))
            let aps = try #require(apns.body["aps"] as? [String: any Sendable])
            let alert = try #require(aps["alert"] as? [String: any Sendable])
            #expect(alert["title"] as? String == "New friend request")
            #expect(alert["body"] as? String == "Bob wants to be friends")
            #expect(aps["badge"] as? Double == 1)
            #expect(apns.body["link"] as? String == "/friends/requests")
            #expect(apns.body["type"] as? String == "friend_request")

            let fcm = try #require(pushes.first { $0.provider == "fcm" })
            #expect(fcm.http2)
            let data = try #require(fcm.body["data"] as? [String: any Sendable])
            #expect(data["link"] as? String == "/friends/requests")
            #expect(data["notificationId"] as? String == id)
            let android = try #require(fcm.body["android"] as? [String: any Sendable])
            #expect((android["notification"] as? [String: any Sendable])?["channel_id"] as? String == "friend_request")

            let expo = try #require(pushes.first { $0.provider == "expo" })
            #expect(expo.token == Self.expoToken)
            #expect(expo.body["title"] as? String == "New friend request")

            // Each device had it once: running again sends nothing more.
            await setup.runner.runDue()
            #expect(setup.fake.pushes.count == 3)
            let rows = try await setup.harness.database().read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM push_delivery WHERE status = 'delivered'")
            }
            #expect(rows == 3)
        }
    }

    @Test func deadTokensRemoveTheirDevicesAtEveryProvider() async throws {
        try await Setup.run { setup, client in
            _ = try await setup.registerAlicesDevices(client)
            setup.fake.refuse(Self.apnsToken, status: 410, body: #"{"reason":"Unregistered"}"#)
            setup.fake.refuse(
                Self.fcmToken, status: 404,
                body:
                    #"{"error":{"code":404,"status":"NOT_FOUND","message":"Requested entity was not found.","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}"#
            )
            setup.fake.refuse(Self.expoToken, status: 200, body: "")
            try await setup.friendRequest()
            await setup.runner.runDue()
            #expect(try setup.devices().isEmpty)
            #expect(setup.fake.pushes.isEmpty)
        }
    }

    @Test(arguments: [
        ("apns", 400, #"{"reason":"BadDeviceToken"}"#, true),
        ("apns", 400, #"{"reason":"DeviceTokenNotForTopic"}"#, true),
        ("apns", 413, #"{"reason":"PayloadTooLarge"}"#, false),
        (
            "fcm", 400,
            #"{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"The registration token is not a valid FCM registration token"}}"#,
            true
        ),
        (
            "fcm", 400,
            #"{"error":{"code":400,"status":"INVALID_ARGUMENT","message":"Invalid JSON payload received."}}"#, false
        ),
        (
            "fcm", 403,
            #"{"error":{"code":403,"status":"PERMISSION_DENIED","details":[{"errorCode":"SENDER_ID_MISMATCH"}]}}"#, true
        ),
    ])
    func aRefusalRemovesTheDeviceOnlyWhenItIsAboutTheToken(
        provider: String, status: Int, body: String, removes: Bool
    ) async throws {
        try await Setup.run { setup, client in
            _ = try await setup.registerAlicesDevices(client)
            let refused = provider == "apns" ? Self.apnsToken : Self.fcmToken
            setup.fake.refuse(refused, status: status, body: body)
            try await setup.friendRequest()
            await setup.runner.runDue()
            // A provider that cannot be reached in time (a loaded CI machine) is retried later, as
            // in production: run until the refusal and the other providers' answers are in.
            for _ in 0..<5 where setup.fake.refusals(of: refused) == 0 || setup.fake.pushes.count < 2 {
                setup.harness.clock.advance(by: 61)
                await setup.runner.runDue()
            }
            #expect(setup.fake.refusals(of: refused) == 1)
            #expect(try setup.devices().contains(provider) == !removes)
            // A final refusal is recorded, never retried.
            setup.harness.clock.advance(by: 3600)
            await setup.runner.runDue()
            #expect(setup.fake.pushes.count == 2)
            let failed = try await setup.harness.database().read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM push_delivery WHERE status = 'failed'")
            }
            #expect(failed == (removes ? 0 : 1))
        }
    }

    @Test func rateLimitsRetryOnlyTheDevicesStillWaitingAfterRetryAfter() async throws {
        try await Setup.run { setup, client in
            _ = try await setup.registerAlicesDevices(client)
            setup.fake.throttle(next: 2)
            try await setup.friendRequest()
            await setup.runner.runDue()
            #expect(setup.fake.pushes.count == 1)
            await setup.runner.runDue()
            #expect(setup.fake.pushes.count == 1)  // Retry-After: 1 has not passed
            setup.harness.clock.advance(by: 1)
            await setup.runner.runDue()
            #expect(setup.fake.pushes.map(\.provider).sorted() == ["apns", "expo", "fcm"])
            setup.harness.clock.advance(by: 60)
            await setup.runner.runDue()
            #expect(setup.fake.pushes.count == 3)
        }
    }

    @Test func manyNotificationsShareOneConnectionAndOneCredentialPerProvider() async throws {
        try await Setup.run { setup, client in
            _ = try await setup.registerAlicesDevices(client)
            for _ in 0..<40 { try await setup.friendRequest() }
            await setup.runner.runDue()
            // A provider that cannot be reached in time (a loaded CI machine) is retried later, as
            // in production: run until each push has gone, then check none went twice.
            var retried: [String] = []
            for _ in 0..<5 where setup.fake.pushes.count < 120 {
                retried += try await setup.retryReasons()
                setup.harness.clock.advance(by: 61)
                await setup.runner.runDue()
            }
            let pushes = setup.fake.pushes
            #expect(pushes.count == 120, "retried: \(retried)")
            #expect(Set(pushes.filter { $0.provider == "apns" }.map(\.connection)).count == 1)
            #expect(pushes.allSatisfy { $0.http2 })
            #expect(setup.fake.providerTokensSeen == 1)
            // Forty sends wait for one grant; only a grant that timed out (its sends retried) is
            // asked for again, once.
            let grants = setup.fake.accessTokensGranted
            let grantTimedOut = retried.contains { $0.contains("no FCM access token") }
            #expect(grants == 1 || (grantTimedOut && grants == 2), "\(grants) grants; retried: \(retried)")
            // Badges count up with the unread notifications.
            let badges = pushes.filter { $0.provider == "apns" }.compactMap {
                ($0.body["aps"] as? [String: any Sendable])?["badge"] as? Double
            }
            #expect(badges.max() == 40)

            // Past 50 minutes the APNs provider token is renewed; the FCM access token lives
            // until a minute before Google's `expires_in` (3,599 s here).
            setup.harness.clock.advance(by: 51 * 60)
            try await setup.friendRequest()
            await setup.runner.runDue()
            #expect(setup.fake.providerTokensSeen == 2)
            #expect(setup.fake.accessTokensGranted == grants)
            setup.harness.clock.advance(by: 8 * 60)
            try await setup.friendRequest()
            await setup.runner.runDue()
            #expect(setup.fake.providerTokensSeen == 2)
            #expect(setup.fake.accessTokensGranted == grants + 1)
            #expect(setup.fake.refusedAuthorizations == 0)
        }
    }

    @Test func nothingIsPushedForATypeTurnedOffAReadNotificationOrABlockedSender() async throws {
        try await Setup.run { setup, client in
            let alice = try await setup.registerAlicesDevices(client)
            _ = try await client.send(
                .put, "/v1/me/notification-preferences", NotificationPreferences(push: ["friend_request": false]),
                token: alice)
            try await setup.friendRequest()
            await setup.runner.runDue()
            #expect(setup.fake.pushes.isEmpty)
            #expect(
                try await client.get("/v1/notifications/unread-count", token: alice).json(UnreadCount.self).count == 1)

            _ = try await client.send(
                .put, "/v1/me/notification-preferences", NotificationPreferences(push: ["friend_request": true]),
                token: alice)
            try await setup.harness.database().write { db in
                try BlockMirror.apply(UserBlocked(blockerId: Self.alice, blockedId: Self.bob), in: db)
            }
            try await setup.friendRequest()
            await setup.runner.runDue()
            #expect(setup.fake.pushes.isEmpty)

            // Read in the app before the push went (a provider was down): not pushed later.
            setup.fake.throttle(next: 3)
            let carol = "00000000-0000-4000-8000-00000000000c"
            let id = try await setup.friendRequest(from: carol)
            await setup.runner.runDue()
            #expect(try await client.request(.post, "/v1/notifications/\(id)/read", token: alice).status == .ok)
            setup.harness.clock.advance(by: 60)
            await setup.runner.runDue()
            #expect(setup.fake.pushes.isEmpty)
        }
    }

    @Test func challengeActivityTypesFollowTheirSixPreferences() async throws {
        try await Setup.run { setup, client in
            let alice = try await setup.registerAlicesDevices(client)
            _ = try await client.send(
                .put, "/v1/me/notification-preferences", NotificationPreferences(push: ["result_posted": false]),
                token: alice)
            let challenge = "c4a11e00-0000-4000-8000-000000000001"
            let (me, bob) = (
                EventActor(userId: Self.alice, displayName: "Alice"),
                EventActor(userId: Self.bob, displayName: "Bob")
            )
            let jobs = JobQueue(clock: setup.harness.clock)
            let now = setup.harness.clock.now()
            try await setup.harness.database().write { db in
                // The result (won: follows `result_posted`, off) and Bob's clip (`opponent_uploaded`, on).
                try AlertsStore.challengeCompleted(
                    EventEnvelope(
                        id: UUID(), type: ChallengeCompleted.eventType, source: .feed, occurredAt: now,
                        payload: ChallengeCompleted(
                            challengeId: challenge, participants: [me, bob],
                            result: ChallengeResult(winner: Self.alice, creatorVotes: 4, opponentVotes: 1))),
                    jobs: jobs, in: db)
                try AlertsStore.challengeClipReady(
                    EventEnvelope(
                        id: UUID(), type: ChallengeClipReady.eventType, source: .feed, occurredAt: now,
                        payload: ChallengeClipReady(challengeId: challenge, uploader: bob, toUserId: Self.alice)),
                    jobs: jobs, in: db)
            }
            await setup.runner.runDue()
            let listed = try await client.get("/v1/notifications", token: alice).json(Page<AppNotification>.self).items
            let won = try #require(listed.first { $0.type == .challengeWon })
            #expect(won.body == "You beat Bob 4–1" && won.link == "/challenge/\(challenge)/result")
            #expect(won.data["result"] == "win")
            // Only the clip was pushed, with the seed's playback link, once per device.
            #expect(setup.fake.pushes.count == 3)
            #expect(
                setup.fake.pushes.allSatisfy {
                    $0.provider != "apns" || $0.body["type"] as? String == "opponent_uploaded"
                })
            let apns = try #require(setup.fake.pushes.first { $0.provider == "apns" })
            #expect(apns.body["link"] as? String == "/challenge/\(challenge)/playback")
        }
    }

    @Test func expoReceiptsRemoveDevicesTheyCallUnregistered() async throws {
        try await Setup.run { setup, client in
            _ = try await setup.registerAlicesDevices(client)
            setup.fake.failAtReceipt(Self.expoToken)
            try await setup.friendRequest()
            await setup.runner.runDue()
            #expect(try setup.devices() == ["apns", "expo", "fcm"])
            setup.harness.clock.advance(by: 61)
            await setup.runner.runDue()
            #expect(try setup.devices() == ["apns", "fcm"])
        }
    }

    /// Quiet hours from `minutesAgo` before the clock's minute to `minutesAhead` after it, on
    /// the wall clock of Kolkata (UTC+05:30): the window is the user's own time, not UTC.
    static func quietHours(
        around now: Date, minutesAgo: Int = 10, minutesAhead: Int, mode: QuietHoursMode
    ) -> NotificationPreferences {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Asia/Kolkata")!
        let parts = calendar.dateComponents([.hour, .minute], from: now)
        let local = parts.hour! * 60 + parts.minute!
        let text = { (minutes: Int) in
            let wrapped = (minutes + 1440) % 1440
            return String(format: "%02d:%02d", wrapped / 60, wrapped % 60)
        }
        return NotificationPreferences(
            push: [:],
            quietHours: QuietHoursSettings(
                start: text(local - minutesAgo), end: text(local + minutesAhead), timeZone: "Asia/Kolkata", mode: mode))
    }

    @Test func aCriticalTypeIsAnAppleCriticalAlertOnlyForAnAppEntitledToIt() throws {
        func aps(critical: Bool, entitled: Bool) throws -> [String: Any] {
            let message = PushMessage(
                notificationId: "n-1", type: .duressAlert, title: "Nearby Duress Alert",
                body: "Customer C-12 needs help",
                link: "/alerts/a-1", data: ["alertId": "a-1"], badge: 1, critical: critical, threadId: nil,
                expiresAt: Date())
            let json = try JSONSerialization.jsonObject(with: APNsSender.payload(message, criticalAlerts: entitled))
            return try #require((json as? [String: Any])?["aps"] as? [String: Any])
        }
        let entitled = try aps(critical: true, entitled: true)
        #expect(entitled["interruption-level"] as? String == "critical")
        let sound = try #require(entitled["sound"] as? [String: Any])
        #expect(sound["critical"] as? Int == 1 && sound["name"] as? String == "default")
        let plain = try aps(critical: true, entitled: false)
        #expect(plain["interruption-level"] as? String == "time-sensitive" && plain["sound"] as? String == "default")
        // The setting changes nothing for other types.
        let other = try aps(critical: false, entitled: true)
        #expect(other["interruption-level"] as? String == "active" && other["sound"] as? String == "default")
    }

    @Test func quietHoursHoldAPushUntilTheyEndButNeverADuressAlert() async throws {
        try await Setup.run { setup, client in
            let clock = setup.harness.clock
            clock.set(Date(timeIntervalSince1970: (clock.now().timeIntervalSince1970 / 60).rounded(.down) * 60))
            let start = clock.now()
            let alice = try await setup.registerAlicesDevices(client)
            let set = try await client.send(
                .put, "/v1/me/notification-preferences",
                Self.quietHours(around: start, minutesAhead: 30, mode: .hold), token: alice)
            #expect(set.status == .ok)

            // A duress alert is critical: it goes at once, time-sensitive, quiet hours or not.
            let header = EventHeader(id: UUID(), type: FriendRequestSent.eventType, source: .streak, occurredAt: start)
            let jobs = JobQueue(clock: clock)
            try await setup.harness.database().write { db in
                try AlertsStore.insert(
                    .duressAlert, for: Self.alice, values: ["customerRef": "C-12"], data: ["alertId": "a-1"],
                    actor: nil, event: header, jobs: jobs, in: db)
            }
            await setup.runner.runDue()
            #expect(setup.fake.pushes.count == 3)
            let duress = try #require(setup.fake.pushes.first { $0.provider == "apns" })
            let aps = try #require(duress.body["aps"] as? [String: any Sendable])
            #expect(aps["interruption-level"] as? String == "time-sensitive")
            #expect(duress.body["link"] as? String == "/alerts/a-1")

            // A friend request waits, without spending the job's attempts, until the window ends.
            try await setup.friendRequest()
            await setup.runner.runDue()
            clock.advance(by: 29 * 60)
            await setup.runner.runDue()
            #expect(setup.fake.pushes.count == 3)
            let attempts = try await setup.harness.database().read { db in
                try Int.fetchOne(db, sql: "SELECT attempts FROM kit_job WHERE kind = 'push.notification'")
            }
            #expect(attempts == 0)
            clock.advance(by: 60)
            await setup.runner.runDue()
            let held = setup.fake.pushes.dropFirst(3)
            #expect(held.map(\.provider).sorted() == ["apns", "expo", "fcm"])
            #expect(held.first { $0.provider == "apns" }?.headers["apns-priority"] == "10")

            // In silent mode it goes at once, without sound or interruption.
            let silent = try await client.send(
                .put, "/v1/me/notification-preferences",
                Self.quietHours(around: clock.now(), minutesAhead: 60, mode: .silent),
                token: try await setup.harness.token(for: Self.alice))
            #expect(silent.status == .ok)
            try await setup.friendRequest()
            await setup.runner.runDue()
            let quiet = setup.fake.pushes.dropFirst(6)
            #expect(quiet.map(\.provider).sorted() == ["apns", "expo", "fcm"])
            let apns = try #require(quiet.first { $0.provider == "apns" })
            #expect(apns.headers["apns-priority"] == "5")
            let quietAps = try #require(apns.body["aps"] as? [String: any Sendable])
            #expect(quietAps["sound"] == nil && quietAps["interruption-level"] as? String == "passive")
            #expect(quiet.first { $0.provider == "expo" }?.body["sound"] == nil)
            let android = quiet.first { $0.provider == "fcm" }?.body["android"] as? [String: any Sendable]
            let notification = android?["notification"] as? [String: any Sendable]
            #expect(notification?["notification_priority"] as? String == "PRIORITY_MIN")
        }
    }

    @Test func aProviderKeyOthersCanReadStopsAlertsAtBoot() async throws {
        let directory = try TestDataDirectory.make()
        defer { directory.remove() }
        let key = directory.url.appendingPathComponent("AuthKey_OPEN.p8")
        try FileSystem.writeOwnerOnly(Data(P256.Signing.PrivateKey().pemRepresentation.utf8), to: key)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: key.path)
        let harness = try ServiceHarness(
            .alerts, config: ["alerts.apns.keyFile": key.path, "alerts.apns.keyId": "K", "alerts.apns.teamId": "T"])
        defer { harness.directory.remove() }
        let error = await #expect(throws: ConfigurationError.self) {
            _ = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        }
        #expect(error?.description.contains("chmod 600") == true)
    }

    @Test func aFastProviderIsRecordedWithoutWaitingForASlowOne() async throws {
        try await Setup.run { setup, client in
            _ = try await setup.registerAlicesDevices(client)
            setup.fake.stall("apns", for: .seconds(2))
            let id = try await setup.friendRequest()
            let run = Task { await setup.runner.runDue() }
            // While APNs is still answering, FCM's and Expo's deliveries are already on disk: a
            // crash now would resend only to the APNs device, which never acknowledged.
            let early = await eventually(timeout: .seconds(1.5), every: .milliseconds(20)) {
                let providers = try? await setup.harness.database().read { db in
                    try String.fetchAll(
                        db, sql: "SELECT provider FROM push_delivery WHERE notification_id = ? ORDER BY provider",
                        arguments: [id])
                }
                return providers == ["expo", "fcm"]
            }
            #expect(early)
            _ = await run.value
            let all = try await setup.harness.database().read { db in
                try String.fetchAll(
                    db, sql: "SELECT provider FROM push_delivery WHERE notification_id = ? ORDER BY provider",
                    arguments: [id])
            }
            #expect(all == ["apns", "expo", "fcm"])
            #expect(setup.fake.pushes.count == 3)
        }
    }
}
