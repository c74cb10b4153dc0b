import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import AlertsService

@Suite struct AlertsRouterTests {
    static let alice = "00000000-0000-4000-8000-00000000000a"
    static let bob = "00000000-0000-4000-8000-00000000000b"

    /// Applies a `friend_request.sent` the way the inbox does.
    func deliver(_ harness: ServiceHarness, id: UUID, from: String, to: String, at date: Date) async throws {
        let envelope = EventEnvelope(
            id: id, type: FriendRequestSent.eventType, source: .streak, occurredAt: date,
            payload: FriendRequestSent(
                requestId: UUID().uuidString.lowercased(), fromUserId: from, fromDisplayName: "Bob", toUserId: to))
        let jobs = JobQueue(clock: harness.clock)
        try await harness.database().write { db in try AlertsStore.friendRequestSent(envelope, jobs: jobs, in: db) }
    }

    @Test func theNotificationCentreListsCountsAndMarksRead() async throws {
        let harness = try ServiceHarness(.alerts)
        let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            let alice = try await harness.token(for: Self.alice)
            let bob = try await harness.token(for: Self.bob)
            let start = Date()
            var ids: [UUID] = []
            for index in 0..<25 {
                let id = UUID()
                ids.append(id)
                try await deliver(
                    harness, id: id, from: Self.bob, to: Self.alice, at: start.addingTimeInterval(Double(index)))
            }
            // The same event delivered again makes no second notification.
            try await deliver(harness, id: ids[0], from: Self.bob, to: Self.alice, at: start)
            #expect(
                try await client.get("/v1/notifications/unread-count", token: alice).json(UnreadCount.self).count == 25)
            #expect(
                try await client.get("/v1/notifications/unread-count", token: bob).json(UnreadCount.self).count == 0)

            var listed: [AppNotification] = []
            var cursor: String?
            repeat {
                let page = try await client.get(
                    "/v1/notifications?limit=10" + (cursor.map { "&cursor=\($0)" } ?? ""), token: alice
                ).json(Page<AppNotification>.self)
                listed += page.items
                cursor = page.nextCursor
            } while cursor != nil
            #expect(listed.map(\.id) == ids.reversed().map { $0.uuidString.lowercased() })
            #expect(
                listed.allSatisfy {
                    $0.type == .friendRequest && $0.body == "Bob wants to be friends" && $0.readAt == nil
                })

            let first = listed[0].id
            #expect(try await client.request(.post, "/v1/notifications/\(first)/read", token: bob).status == .notFound)
            let read = try await client.request(.post, "/v1/notifications/\(first)/read", token: alice).json(
                AppNotification.self)
            #expect(read.readAt != nil)
            #expect(
                try await client.get("/v1/notifications/unread-count", token: alice).json(UnreadCount.self).count == 24)
            #expect(
                try await client.request(.post, "/v1/notifications/read-all", token: alice).json(MarkedRead.self)
                    .updated == 24)
            #expect(
                try await client.get("/v1/notifications/unread-count", token: alice).json(UnreadCount.self).count == 0)
            #expect(try await client.request(.post, "/v1/notifications/nope/read", token: alice).status == .notFound)
            #expect(try await client.get("/v1/notifications?cursor=zzz", token: alice).status == .badRequest)
            #expect(try await client.get("/v1/notifications").status == .unauthorized)
        }
    }

    static let apnsToken = String(repeating: "ab12", count: 16)
    static let fcmToken = "cXz1:APA91b" + String(repeating: "Fq3_-k", count: 20)

    @Test func aFollowTellsTheFollowedOncePerFollowerADayUnlessTheyMutedThem() async throws {
        let harness = try ServiceHarness(.alerts)
        let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            let jobs = JobQueue(clock: harness.clock)
            @Sendable func follow(by follower: String, _ name: String, at date: Date) async throws {
                let envelope = EventEnvelope(
                    id: UUID(), type: UserFollowed.eventType, source: .feed, occurredAt: date,
                    payload: UserFollowed(
                        follower: EventActor(userId: follower, displayName: name), followeeId: Self.alice))
                try await harness.database().write { db in try AlertsStore.userFollowed(envelope, jobs: jobs, in: db) }
            }
            let alice = try await harness.token(for: Self.alice)
            func listed() async throws -> [AppNotification] {
                try await client.get("/v1/notifications", token: alice).json(Page<AppNotification>.self).items
            }
            let start = Date()
            try await follow(by: Self.bob, "Bob", at: start)
            // Unfollowed and followed again within the day: still one.
            try await follow(by: Self.bob, "Bob", at: start.addingTimeInterval(3600))
            let first = try await listed()
            #expect(first.count == 1)
            #expect(
                first.first.map { [$0.title, $0.body, $0.link, $0.actorId] }
                    == ["New follower", "Bob followed you", "/profile/\(Self.bob)", Self.bob])
            #expect(first.first?.type == .newFollower && first.first?.data == ["userId": Self.bob])
            // Another follower, and Bob again a day later, each tell her.
            let carol = "00000000-0000-4000-8000-00000000000c"
            try await follow(by: carol, "Carol", at: start.addingTimeInterval(7200))
            try await follow(by: Self.bob, "Bob", at: start.addingTimeInterval(86400 + 1))
            #expect(try await listed().map(\.actorId) == [Self.bob, carol, Self.bob])
            // Someone she muted tells her nothing.
            let dave = "00000000-0000-4000-8000-00000000000d"
            try await harness.database().write { db in
                try MuteMirrorRecord(muterId: Self.alice, mutedId: dave).insert(db)
            }
            try await follow(by: dave, "Dave", at: start.addingTimeInterval(86400 + 2))
            #expect(try await listed().count == 3)
        }
    }

    @Test func likesAndRepostsTellOncePerPostADayAndEveryReplyTells() async throws {
        let harness = try ServiceHarness(.alerts)
        let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            let jobs = JobQueue(clock: harness.clock)
            let bob = EventActor(userId: Self.bob, displayName: "Bob")
            let (post, other) = ("9057a000-0000-4000-8000-000000000001", "9057a000-0000-4000-8000-000000000002")
            let start = Date()
            try await harness.database().write { db in
                func header(_ minutes: Double) -> (UUID, Date) {
                    (UUID(), start.addingTimeInterval(minutes * 60))
                }
                for (minutes, postId) in [(0.0, post), (5, post), (6, other)] {
                    let (id, at) = header(minutes)
                    try AlertsStore.postLiked(
                        EventEnvelope(
                            id: id, type: PostLiked.eventType, source: .feed, occurredAt: at,
                            payload: PostLiked(PostActivity(postId: postId, authorId: Self.alice, actor: bob))),
                        jobs: jobs, in: db)
                }
                for minutes in [7.0, 8] {
                    let (id, at) = header(minutes)
                    try AlertsStore.postReplied(
                        EventEnvelope(
                            id: id, type: PostReplied.eventType, source: .feed, occurredAt: at,
                            payload: PostReplied(
                                PostActivity(postId: post, authorId: Self.alice, actor: bob, replyId: UUID().uuidString)
                            )),
                        jobs: jobs, in: db)
                }
                let (id, at) = header(9)
                try AlertsStore.postReposted(
                    EventEnvelope(
                        id: id, type: PostReposted.eventType, source: .feed, occurredAt: at,
                        payload: PostReposted(PostActivity(postId: post, authorId: Self.alice, actor: bob))),
                    jobs: jobs, in: db)
            }
            let listed = try await client.get("/v1/notifications", token: try await harness.token(for: Self.alice))
                .json(Page<AppNotification>.self).items
            #expect(listed.map(\.type) == [.repost, .reply, .reply, .like, .like])
            #expect(listed.last?.body == "Bob liked your post" && listed.last?.link == "/posts/\(post)")
            #expect(listed[3].link == "/posts/\(other)" && listed[0].body == "Bob reposted your post")
        }
    }

    @Test func aSuspendedUserKeepsTheirDevicesAndNotificationsButSendsNothing() async throws {
        let session = "5e550000-0000-4000-8000-0000000000a5"
        let state = SessionState(
            sessionId: session, userId: Self.alice, limited: false, roles: [],
            suspendedUntil: Date().addingTimeInterval(86400))
        let harness = try ServiceHarness(.alerts, sessions: .fixed([session: state]))
        let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            let alice = try await harness.token(for: Self.alice, session: session)
            let apns = DeviceRegistration(
                provider: .apns, token: Self.apnsToken, bundleId: "com.example.streaksnap", environment: .sandbox)
            #expect(try await client.post("/v1/devices", apns, token: alice).status == .created)
            #expect(
                try await client.post("/v1/notifications/read-all", [String: String](), token: alice).status.code < 300)
            let sent = try await client.post(
                "/v1/messages", MessageDraft(recipientId: Self.bob, text: "hi"), token: alice)
            #expect(sent.status == .forbidden && sent.error?.code == .accountSuspended)
        }
    }

    @Test func devicesAreRegisteredPerSessionMovedBetweenUsersAndRemoved() async throws {
        let harness = try ServiceHarness(.alerts)
        let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            let alice = try await harness.token(for: Self.alice, session: "5e550000-0000-4000-8000-00000000000a")
            let alicePad = try await harness.token(for: Self.alice, session: "5e550000-0000-4000-8000-0000000000aa")
            let bob = try await harness.token(for: Self.bob, session: "5e550000-0000-4000-8000-00000000000b")

            let apns = DeviceRegistration(
                provider: .apns, token: Self.apnsToken.uppercased(), bundleId: "com.example.streaksnap",
                environment: .sandbox)
            let created = try await client.post("/v1/devices", apns, token: alice)
            #expect(created.status == .created)
            let device = try created.json(Device.self)
            #expect(device.token == Self.apnsToken)  // stored lowercased
            #expect(device.currentSession && device.environment == .sandbox)

            // The same token again: refreshed in place, same id.
            harness.clock.advance(by: 60)
            let again = try await client.post("/v1/devices", apns, token: alice)
            #expect(again.status == .ok)
            #expect(try again.json(Device.self).id == device.id)
            #expect(try again.json(Device.self).lastRefreshedAt > device.lastRefreshedAt)

            // FCM with a platform and device id, from Alice's other session, and the Expo push-token route.
            harness.clock.advance(by: 1)
            let fcm = DeviceRegistration(provider: .fcm, token: Self.fcmToken, platform: "android", deviceId: "pixel-1")
            #expect(try await client.post("/v1/devices", fcm, token: alicePad).status == .created)
            harness.clock.advance(by: 1)
            let expo = try await client.send(
                .put, "/v1/me/push-token", PushTokenUpdate(pushToken: "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]"),
                token: alice)
            #expect(expo.status == .created)
            #expect(try expo.json(Device.self).provider == .expo)
            var listed = try await client.get("/v1/devices", token: alice).json(Page<Device>.self).items
            #expect(listed.map(\.provider) == [.expo, .fcm, .apns])
            #expect(listed.map(\.currentSession) == [true, false, true])
            #expect(try await client.get("/v1/devices", token: bob).json(Page<Device>.self).items.isEmpty)

            // A new FCM token for the same installation replaces the old one.
            harness.clock.advance(by: 60)
            var rotated = fcm
            rotated.token = String(Self.fcmToken.reversed()).replacingOccurrences(of: ":", with: "_")
            #expect(try await client.post("/v1/devices", rotated, token: alicePad).status == .created)
            listed = try await client.get("/v1/devices", token: alice).json(Page<Device>.self).items
            #expect(listed.filter { $0.provider == .fcm }.map(\.token) == [rotated.token])

            // Bob signs in on Alice's phone: the APNs token moves to him, under a new id.
            let moved = try await client.post("/v1/devices", apns, token: bob)
            #expect(moved.status == .created)
            #expect(try moved.json(Device.self).id != device.id)
            listed = try await client.get("/v1/devices", token: alice).json(Page<Device>.self).items
            #expect(!listed.contains { $0.provider == .apns })
            #expect(try await client.request(.delete, "/v1/devices/\(device.id)", token: alice).status == .notFound)

            // Another user's device is a 404; one's own goes.
            let bobsDevice = try moved.json(Device.self).id
            #expect(try await client.request(.delete, "/v1/devices/\(bobsDevice)", token: alice).status == .notFound)
            #expect(try await client.request(.delete, "/v1/devices/\(bobsDevice)", token: bob).status == .noContent)
            #expect(try await client.get("/v1/devices", token: bob).json(Page<Device>.self).items.isEmpty)

            // The push-token DELETE removes this session's Expo token only.
            #expect(try await client.request(.delete, "/v1/me/push-token", token: alice).status == .noContent)
            listed = try await client.get("/v1/devices", token: alice).json(Page<Device>.self).items
            #expect(listed.map(\.provider) == [.fcm])
            #expect(try await client.get("/v1/devices").status == .unauthorized)
        }
    }

    @Test(
        arguments: [
            // provider, token, bundleId, environment, platform
            ("apns", "abc", "com.example.app", "sandbox", nil),
            ("apns", String(repeating: "zz", count: 32), "com.example.app", "sandbox", nil),
            ("apns", String(repeating: "a", count: 65), "com.example.app", "sandbox", nil),
            ("apns", String(repeating: "ab", count: 32), nil, "sandbox", nil),
            ("apns", String(repeating: "ab", count: 32), "not a bundle", "sandbox", nil),
            ("apns", String(repeating: "ab", count: 32), "com.example.app", nil, nil),
            ("fcm", "short", nil, nil, nil),
            ("fcm", String(repeating: "a b", count: 40), nil, nil, nil),
            ("fcm", AlertsRouterTests.fcmToken, "com.example.app", nil, nil),
            ("fcm", AlertsRouterTests.fcmToken, nil, nil, "windows"),
            ("expo", "ExponentPushToken[]", nil, nil, nil),
            ("expo", "PushToken[abc]", nil, nil, nil),
            ("expo", "ExponentPushToken[a b]", nil, nil, nil),
        ] as [(String, String, String?, String?, String?)])
    func aTokenOfTheWrongShapeIsA400AndStoresNothing(
        provider: String, token: String, bundleId: String?, environment: String?, platform: String?
    ) async throws {
        let harness = try ServiceHarness(.alerts)
        let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            let alice = try await harness.token(for: Self.alice)
            var body = ["provider": provider, "token": token]
            body["bundleId"] = bundleId
            body["environment"] = environment
            body["platform"] = platform
            let response = try await client.post("/v1/devices", body, token: alice)
            #expect(response.status == .badRequest)
            #expect(response.error?.code == .validationFailed)
            #expect(try await client.get("/v1/devices", token: alice).json(Page<Device>.self).items.isEmpty)
        }
    }

    @Test func aNotificationIsQueuedForPushOnlyForAUserWithADevice() async throws {
        let harness = try ServiceHarness(.alerts)
        let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            func pushJobs() throws -> [String] {
                try harness.database().read { db in
                    try String.fetchAll(
                        db, sql: "SELECT key FROM kit_job WHERE kind = 'push.notification' ORDER BY key")
                }
            }
            let first = UUID()
            try await deliver(harness, id: first, from: Self.bob, to: Self.alice, at: Date())
            #expect(try pushJobs().isEmpty)
            let apns = DeviceRegistration(
                provider: .apns, token: Self.apnsToken, bundleId: "com.example.streaksnap", environment: .sandbox)
            let alice = try await harness.token(for: Self.alice)
            #expect(try await client.post("/v1/devices", apns, token: alice).status == .created)
            let second = UUID()
            try await deliver(harness, id: second, from: Self.bob, to: Self.alice, at: Date())
            #expect(try pushJobs() == [second.uuidString.lowercased()])
            let listed = try await client.get("/v1/notifications", token: alice).json(Page<AppNotification>.self).items
            #expect(listed.count == 2)
        }
    }

    @Test func anUnknownProviderOrMissingTokenIsA400() async throws {
        let harness = try ServiceHarness(.alerts)
        let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            let alice = try await harness.token(for: Self.alice)
            let unknown = try await client.post("/v1/devices", ["provider": "wns", "token": "x"], token: alice)
            #expect(unknown.status == .badRequest)
            #expect(unknown.error?.message.contains("provider") == true)
            #expect(try await client.post("/v1/devices", ["provider": "expo"], token: alice).status == .badRequest)
            #expect(
                try await client.send(.put, "/v1/me/push-token", ["token": "x"], token: alice).status == .badRequest)
        }
    }

    @Test func aUserKeepsTheirNewestTwentyDevices() async throws {
        let harness = try ServiceHarness(.alerts)
        let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            let alice = try await harness.token(for: Self.alice)
            for index in 0..<25 {
                harness.clock.advance(by: 1)
                let token = "ExponentPushToken[device-\(index)]"
                #expect(
                    try await client.post(
                        "/v1/devices", DeviceRegistration(provider: .expo, token: token), token: alice
                    ).status == .created)
            }
            let listed = try await client.get("/v1/devices", token: alice).json(Page<Device>.self).items
            #expect(listed.count == PushTokenRules.maxDevicesPerUser)
            #expect(listed.first?.token == "ExponentPushToken[device-24]")
            #expect(listed.last?.token == "ExponentPushToken[device-5]")
        }
    }

    @Test func anEndedSessionTakesItsDevicesAndADeletedUserAllOfThem() async throws {
        let harness = try ServiceHarness(.alerts)
        let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            let phone = "5e550000-0000-4000-8000-000000000001"
            let pad = "5e550000-0000-4000-8000-000000000002"
            for (session, token) in [(phone, "ExponentPushToken[phone]"), (pad, "ExponentPushToken[pad]")] {
                let alice = try await harness.token(for: Self.alice, session: session)
                #expect(
                    try await client.post(
                        "/v1/devices", DeviceRegistration(provider: .expo, token: token), token: alice
                    ).status == .created)
            }
            let ended = EventEnvelope(
                id: UUID(), type: SessionEnded.eventType, source: .auth, occurredAt: Date(),
                payload: SessionEnded(userId: Self.alice, sessionIds: [phone], reason: .logout))
            try await harness.database().write { db in try AlertsStore.sessionEnded(ended, in: db) }
            let alice = try await harness.token(for: Self.alice, session: pad)
            var listed = try await client.get("/v1/devices", token: alice).json(Page<Device>.self).items
            #expect(listed.map(\.token) == ["ExponentPushToken[pad]"])

            // Someone else's session id never touches Alice's devices.
            let impostor = EventEnvelope(
                id: UUID(), type: SessionEnded.eventType, source: .auth, occurredAt: Date(),
                payload: SessionEnded(userId: Self.bob, sessionIds: [pad], reason: .revoked))
            try await harness.database().write { db in try AlertsStore.sessionEnded(impostor, in: db) }
            #expect(try await client.get("/v1/devices", token: alice).json(Page<Device>.self).items.count == 1)

            try await harness.database().write { db in try AlertsStore.erase(userID: Self.alice, in: db) }
            listed = try await client.get("/v1/devices", token: alice).json(Page<Device>.self).items
            #expect(listed.isEmpty)
        }
    }

    /// Streak sends `streak.snapped` before it applies a deletion; alerts may apply the deletion
    /// first. Such late events make no notification about (or for) the deleted account, and a
    /// late `profile.changed` does not bring its name back.
    @Test func eventsArrivingAfterADeletionMakeNothingOfTheDeletedAccount() async throws {
        let harness = try ServiceHarness(.alerts)
        let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        let events = try AlertsEventFeed(parts: parts, clock: harness.clock)
        let carol = "00000000-0000-4000-8000-00000000000c"
        @Sendable func snapped(from: String, to: String) -> StreakSnapped {
            StreakSnapped(
                streakId: UUID().uuidString.lowercased(), snapId: UUID().uuidString.lowercased(),
                from: StreakMember(userId: from, displayName: "Someone"), toUserId: to)
        }
        try await harness.test(parts) { client in
            try await events.deliver(UserDeleted(userId: Self.bob, requestedAt: harness.clock.now()), from: .auth)
            try await events.deliver(snapped(from: Self.bob, to: Self.alice), from: .streak)
            try await events.deliver(snapped(from: carol, to: Self.bob), from: .streak)
            try await events.deliver(
                ProfileChanged(userId: Self.bob, username: "bob", displayName: "Bob", avatarMediaId: nil, revision: 7),
                from: .auth)
            // Carol's snap, sent the same way, is still a notification.
            try await events.deliver(snapped(from: carol, to: Self.alice), from: .streak)
            let alice = try await harness.token(for: Self.alice)
            let listed = try await client.get("/v1/notifications", token: alice).json(Page<AppNotification>.self).items
            #expect(listed.map(\.actorId) == [carol])
            let (rows, profile) = try await events.database.read { db in
                (
                    try db.rows(mentioning: Self.bob),
                    try ProfileMirror.profiles([Self.bob], in: db)[Self.bob]
                )
            }
            #expect(rows.isEmpty, "\(rows)")
            #expect(profile?.deleted == true && profile?.username == nil && profile?.displayName == "")
        }
    }

    @Test func theCatalogDescribesEveryTypeOnceWithTheSeedsLinks() {
        let types = NotificationCatalog.kinds.map(\.type)
        #expect(types.count == Set(types).count)
        #expect(Set(types) == Set(NotificationType.allCases))
        #expect(NotificationCatalog.kinds.filter(\.critical).map(\.type) == [.duressAlert])
        // The challenges' table of deep links.
        let links = Dictionary(uniqueKeysWithValues: NotificationCatalog.kinds.map { ($0.type, $0.link) })
        #expect(links[.opponentUploaded] == "/challenge/{challengeId}/playback")
        #expect(links[.votingRequested] == "/challenge/{challengeId}/vote")
        #expect(
            NotificationKind.render(
                NotificationCatalog.kind(of: .streakAtRisk).body, ["count": "47", "partner": "Sarah", "hours": "3"])
                == "Your 47-day streak with Sarah expires in 3 hours!")
    }

    @Test func notificationsCarryTheirLinkAndActorAndCanBeReadByIdsAndDeleted() async throws {
        let harness = try ServiceHarness(.alerts)
        let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            let alice = try await harness.token(for: Self.alice)
            let bob = try await harness.token(for: Self.bob)
            let accepted = EventEnvelope(
                id: UUID(), type: FriendRequestAccepted.eventType, source: .streak, occurredAt: Date(),
                payload: FriendRequestAccepted(
                    requestId: "r1", fromUserId: Self.alice, toUserId: Self.bob, toDisplayName: "Bob",
                    streakId: "57ea0000-0000-4000-8000-000000000001"))
            let jobs = JobQueue(clock: harness.clock)
            try await harness.database().write { db in
                try AlertsStore.friendRequestAccepted(accepted, jobs: jobs, in: db)
            }
            for offset in 0..<3 {
                try await deliver(
                    harness, id: UUID(), from: Self.bob, to: Self.alice, at: Date().addingTimeInterval(Double(offset)))
            }
            let listed = try await client.get("/v1/notifications", token: alice).json(Page<AppNotification>.self).items
            #expect(listed.count == 4)
            let acceptance = try #require(listed.first { $0.type == .friendAccepted })
            #expect(acceptance.link == "/streaks/57ea0000-0000-4000-8000-000000000001")
            #expect(acceptance.actorId == Self.bob)
            #expect(acceptance.body == "Bob accepted: your streak starts today")
            #expect(listed.filter { $0.type == .friendRequest }.allSatisfy { $0.link == "/friends/requests" })

            // Read by ids: Bob's ids change nothing of Alice's; Alice's two do.
            let requests = listed.filter { $0.type == .friendRequest }.map(\.id)
            #expect(
                try await client.post("/v1/notifications/read", MarkRead(ids: requests), token: bob).json(
                    MarkedRead.self
                ).updated == 0)
            #expect(
                try await client.post(
                    "/v1/notifications/read", MarkRead(ids: Array(requests.prefix(2)) + ["nope"]), token: alice
                ).json(MarkedRead.self).updated == 2)
            #expect(
                try await client.get("/v1/notifications/unread-count", token: alice).json(UnreadCount.self).count == 2)
            let tooMany = MarkRead(ids: Array(repeating: requests[0], count: 501))
            #expect(try await client.post("/v1/notifications/read", tooMany, token: alice).status == .badRequest)

            // Delete one: someone else's is a 404.
            #expect(
                try await client.request(.delete, "/v1/notifications/\(requests[2])", token: bob).status == .notFound)
            #expect(
                try await client.request(.delete, "/v1/notifications/\(requests[2])", token: alice).status == .noContent
            )
            #expect(
                try await client.get("/v1/notifications/unread-count", token: alice).json(UnreadCount.self).count == 1)
            #expect(
                try await client.request(.delete, "/v1/notifications/\(requests[2])", token: alice).status == .notFound)
        }
    }

    @Test func pushPreferencesDefaultFromTheCatalogAndChangeOnlyWhatIsNamed() async throws {
        let harness = try ServiceHarness(.alerts)
        let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            let alice = try await harness.token(for: Self.alice)
            let bob = try await harness.token(for: Self.bob)
            let defaults = try await client.get("/v1/me/notification-preferences", token: alice)
                .json(NotificationPreferences.self)
            let choosable = NotificationCatalog.kinds.filter { $0.governedBy == nil }
            #expect(Set(defaults.push.keys) == Set(choosable.map(\.type.rawValue)))
            #expect(defaults.push["challenge_won"] == nil)  // follows `result_posted`
            let catalog = Dictionary(uniqueKeysWithValues: choosable.map { ($0.type.rawValue, $0.pushByDefault) })
            #expect(defaults.push == catalog)
            #expect(defaults.push["duress_acknowledged"] == false && defaults.push["challenge_received"] == true)

            let changed = try await client.send(
                .put, "/v1/me/notification-preferences",
                NotificationPreferences(push: ["spot_nearby": false, "new_follower": false]), token: alice
            ).json(NotificationPreferences.self)
            #expect(changed.push["spot_nearby"] == false && changed.push["new_follower"] == false)
            #expect(changed.push["challenge_received"] == true)
            #expect(changed.push.count == choosable.count)

            // Turned back on, one at a time; Bob's are his own.
            let again = try await client.send(
                .put, "/v1/me/notification-preferences", NotificationPreferences(push: ["spot_nearby": true]),
                token: alice
            ).json(NotificationPreferences.self)
            #expect(again.push["spot_nearby"] == true && again.push["new_follower"] == false)
            #expect(
                try await client.get("/v1/me/notification-preferences", token: bob).json(NotificationPreferences.self)
                    .push == catalog)

            // An unknown type changes nothing, not even the valid ones beside it.
            let unknown = try await client.send(
                .put, "/v1/me/notification-preferences",
                NotificationPreferences(push: ["new_follower": true, "horoscope": false]), token: alice)
            #expect(unknown.status == .badRequest)
            #expect(unknown.error?.message.contains("horoscope") == true)
            // Challenge activity types follow their six preferences: set the preference.
            let governed = try await client.send(
                .put, "/v1/me/notification-preferences", NotificationPreferences(push: ["challenge_won": false]),
                token: alice)
            #expect(governed.status == .badRequest)
            #expect(governed.error?.message.contains("result_posted") == true)
            #expect(
                try await client.get("/v1/me/notification-preferences", token: alice).json(NotificationPreferences.self)
                    .push["new_follower"] == false)

            try await harness.database().write { db in try AlertsStore.erase(userID: Self.alice, in: db) }
            #expect(
                try await client.get("/v1/me/notification-preferences", token: alice).json(NotificationPreferences.self)
                    .push == catalog)
        }
    }

    @Test func quietHoursAreSetKeptBesidePushChangesAndCleared() async throws {
        let harness = try ServiceHarness(.alerts)
        let parts = try await AlertsService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            let alice = try await harness.token(for: Self.alice)
            let path = "/v1/me/notification-preferences"
            #expect(try await client.get(path, token: alice).json(NotificationPreferences.self).quietHours == nil)

            let night = QuietHoursSettings(start: "22:00", end: "07:00", timeZone: "Europe/Paris")
            let set = try await client.send(
                .put, path, NotificationPreferences(push: [:], quietHours: night), token: alice)
            #expect(set.status == .ok)
            let answered = try set.json(NotificationPreferences.self).quietHours
            #expect(answered == QuietHoursSettings(start: "22:00", end: "07:00", timeZone: "Europe/Paris", mode: .hold))

            // A PUT that does not name quiet hours leaves them alone.
            _ = try await client.send(.put, path, NotificationPreferences(push: ["new_follower": false]), token: alice)
            let kept = try await client.get(path, token: alice).json(NotificationPreferences.self)
            #expect(kept.quietHours?.start == "22:00" && kept.push["new_follower"] == false)

            // Invalid quiet hours are a 400 and change nothing, not even the push choice beside them.
            for bad in [
                QuietHoursSettings(start: "22:00", end: "25:00", timeZone: "Europe/Paris"),
                QuietHoursSettings(start: "08:00", end: "09:00", timeZone: "Moon/Tranquility"),
            ] {
                let refused = try await client.send(
                    .put, path, NotificationPreferences(push: ["new_follower": true], quietHours: bad), token: alice)
                #expect(refused.status == .badRequest)
                #expect(refused.error?.code == .validationFailed)
            }
            let unchanged = try await client.get(path, token: alice).json(NotificationPreferences.self)
            #expect(unchanged.quietHours?.timeZone == "Europe/Paris" && unchanged.push["new_follower"] == false)

            // `null` clears them; another user never had them.
            let cleared = try await client.send(
                .put, path, NotificationPreferences(push: [:], quietHours: nil, namesQuietHours: true), token: alice)
            #expect(try cleared.json(NotificationPreferences.self).quietHours == nil)
            let bob = try await harness.token(for: Self.bob)
            #expect(try await client.get(path, token: bob).json(NotificationPreferences.self).quietHours == nil)
        }
    }
}
