import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Synchronization
import TestSupport
import Testing

@testable import ServiceHTTP
@testable import ServiceStore
@testable import StreakService

@Suite struct StreakRouterTests {
    static let alice = "00000000-0000-4000-8000-00000000000a"
    static let bob = "00000000-0000-4000-8000-00000000000b"
    static let carol = "00000000-0000-4000-8000-00000000000c"
    static let dave = "00000000-0000-4000-8000-00000000000d"
    static let erin = "00000000-0000-4000-8000-00000000000e"
    static let gus = "00000000-0000-4000-8000-000000000009"
    static let users = [alice: "Alice", bob: "Bob", carol: "Carol", dave: "Dave", erin: "Erin"]

    /// One ready photo per user per day index.
    static func media(_ user: String, _ day: Int) -> String {
        String(format: "3%07d-0000-4000-8000-%@", day, String(user.suffix(12)))
    }

    /// Runs `body` against a streak service whose media lookup knows ``media(_:_:)`` for each
    /// user and day: ready, except those named in `processing`. `sessions` answers as auth would
    /// (premium, say); without it sessions are not checked.
    func withStreak(
        at start: Date, processing: Set<String> = [], unmirrored: Set<String> = [],
        sessions: Lookup<SessionState>? = nil,
        windows: Bool = false, cards: ShareCardDesk = ShareCardDesk(), config: [String: String] = [:],
        _ body: @escaping @Sendable (ServiceHarness, any TestClientProtocol, JobRunner) async throws -> Void
    ) async throws {
        // Windows off unless a test is about them: the other tests snap at any hour.
        let harness = try ServiceHarness(
            .streak, config: config.merging(["streak.windows.enforced": "\(windows)"]) { own, _ in own },
            clock: ManualClock(start), sessions: sessions)
        var library: [String: MediaSummary] = [:]
        for user in Self.users.keys {
            for day in 0..<40 {
                let id = Self.media(user, day)
                var summary = MediaSummary(
                    id: id, ownerId: user, contentType: "image/jpeg",
                    status: processing.contains(id) ? .processing : .ready)
                // Just uploaded: media's answer describes it, its event has not come yet.
                if unmirrored.contains(id) { summary.described = ServiceHarness.described(summary) }
                library[id] = summary
            }
        }
        let dependencies = StreakDependencies(
            media: .fixed(library),
            users: .fixed(Self.users.reduce(into: [:]) { $0[$1.key] = UserSummary(id: $1.key, displayName: $1.value) }),
            // Auth's search (its matching is ContractTests' `user-search`): everyone, and
            // Gus, whom streak has never seen, for "everyone"; nobody otherwise.
            searchUsers: { query in
                guard query == "everyone" else { return [] }
                return
                    (Self.users.map { UserSummary(id: $0.key, displayName: $0.value) }
                    + [UserSummary(id: Self.gus, displayName: "Gus")]).sorted { $0.displayName < $1.displayName }
            },
            shareCards: { await cards.render($0) })
        let parts = try await StreakService.buildRouter(
            runtime: harness.runtime, reader: harness.reader, dependencies: dependencies)
        let runner = try #require(parts.services.compactMap { $0 as? JobRunner }.first)
        // Streak's copies of profiles and media, as auth's and media's events fill them.
        try harness.mirror(
            people: Self.users.map { UserSummary(id: $0.key, displayName: $0.value) }
                + [UserSummary(id: Self.gus, displayName: "Gus")],
            media: library.values.filter { !unmirrored.contains($0.id) })
        try await harness.test(parts) { client in try await body(harness, client, runner) }
    }

    @Test func whenConfiguredAskingForFriendsWaitsForAProvenEmailAddress() async throws {
        let verified = Mutex(false)
        let sessions = Lookup<SessionState> { id in
            SessionState(
                sessionId: id, userId: Self.alice, limited: false, roles: [], emailVerified: verified.withLock { $0 })
        }
        try await withStreak(
            at: Self.instant("2026-03-10T10:00:00Z"), sessions: sessions,
            config: ["accounts.requireVerifiedEmail": "true"]
        ) { harness, client, _ in
            let alice = try await harness.token(for: Self.alice)
            let refused = try await client.post(
                "/v1/friends/requests", FriendRequestCreate(userId: Self.bob), token: alice)
            #expect(refused.status == .forbidden && refused.error?.code == .emailVerificationRequired)
            verified.withLock { $0 = true }
            harness.clock.advance(by: 6)  // past the session state's fresh interval
            let sent = try await client.post(
                "/v1/friends/requests", FriendRequestCreate(userId: Self.bob), token: alice)
            #expect(sent.status == .created)
        }
    }

    static func instant(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

    /// A second handle on the service's store, for what the inbox does with other services'
    /// events.
    func store(_ harness: ServiceHarness) throws -> StreakStore {
        let database = try harness.databasePool()
        return StreakStore(
            database: database, outbox: harness.runtime.makeOutbox(), jobs: harness.runtime.makeJobQueue(),
            settings: StreakSettings(), entropy: SystemEntropy(),
            views: harness.runtime.makeViews(database: database).views)
    }

    func befriend(
        _ harness: ServiceHarness, _ client: some TestClientProtocol, _ from: String, _ to: String
    ) async throws
        -> Streak
    {
        let request = try await client.post(
            "/v1/friends/requests", FriendRequestCreate(userId: to), token: try await harness.token(for: from)
        ).json(FriendRequest.self)
        return try await client.request(
            .post, "/v1/friends/requests/\(request.id)/accept", token: try await harness.token(for: to)
        ).json(Streak.self)
    }

    func snap(
        _ harness: ServiceHarness, _ client: some TestClientProtocol, _ user: String, day: Int, zone: String,
        to streaks: [String]? = nil
    ) async throws -> TestResponse {
        try await client.post(
            "/v1/snaps", SnapCreate(mediaId: Self.media(user, day), timeZone: zone, streakIds: streaks),
            token: try await harness.token(for: user))
    }

    func streak(
        _ harness: ServiceHarness, _ client: some TestClientProtocol, _ id: String, as user: String
    ) async throws -> Streak {
        try await client.get("/v1/streaks/\(id)", token: try await harness.token(for: user)).json(Streak.self)
    }

    @Test func friendRequestsAreCheckedAndNotifyByEvent() async throws {
        try await withStreak(at: Date()) { harness, client, _ in
            let alice = try await harness.token(for: Self.alice)
            let bob = try await harness.token(for: Self.bob)
            let cases: [(String, HTTPResponse.Status, ErrorCode)] = [
                (Self.alice, .badRequest, .validationFailed),
                ("00000000-0000-4000-8000-0000000000ff", .notFound, .notFound),
                ("bob", .badRequest, .validationFailed),
            ]
            for (target, status, code) in cases {
                let response = try await client.post(
                    "/v1/friends/requests", FriendRequestCreate(userId: target), token: alice)
                #expect(response.status == status)
                #expect(response.error?.code == code)
            }
            let sent = try await client.post(
                "/v1/friends/requests", FriendRequestCreate(userId: Self.bob), token: alice)
            #expect(sent.status == .created)
            let request = try sent.json(FriendRequest.self)
            #expect(
                try await client.post("/v1/friends/requests", FriendRequestCreate(userId: Self.bob), token: alice)
                    .status == .conflict)
            #expect(
                try await client.post("/v1/friends/requests", FriendRequestCreate(userId: Self.alice), token: bob)
                    .status == .conflict)
            #expect(
                try harness.outboxEvents(FriendRequestSent.self) == [
                    FriendRequestSent(
                        requestId: request.id, fromUserId: Self.alice, fromDisplayName: "Alice", toUserId: Self.bob)
                ])
            let incoming = try await client.get("/v1/friends/requests?direction=incoming", token: bob).json(
                Page<FriendRequest>.self)
            #expect(incoming.items.map(\.id) == [request.id])
            #expect(
                try await client.get("/v1/friends/requests", token: alice).json(Page<FriendRequest>.self).items.isEmpty)
            #expect(try await client.get("/v1/friends/requests?direction=sideways", token: alice).status == .badRequest)

            // Only the recipient answers; an answered request cannot be answered again.
            #expect(
                try await client.request(.post, "/v1/friends/requests/\(request.id)/accept", token: alice).status
                    == .notFound)
            let streak = try await client.request(.post, "/v1/friends/requests/\(request.id)/accept", token: bob)
            #expect(streak.status == .ok)
            #expect(try streak.json(Streak.self).friendId == Self.alice)
            #expect(
                try await client.request(.post, "/v1/friends/requests/\(request.id)/decline", token: bob).status
                    == .conflict)
            #expect(try harness.outboxTypes() == ["friend_request.sent", "friend_request.accepted"])
            #expect(
                try await client.post("/v1/friends/requests", FriendRequestCreate(userId: Self.bob), token: alice)
                    .status == .conflict)
        }
    }

    @Test func aDayCountsWhenBothSnappedInTheirOwnTimeZones() async throws {
        // 20:00 UTC on 10 March 2026: already the 11th in Tokyo, still the 10th in Los Angeles.
        try await withStreak(at: Self.instant("2026-03-10T20:00:00Z")) { harness, client, _ in
            let streak = try await befriend(harness, client, Self.alice, Self.bob)
            let tokyo = try await snap(harness, client, Self.alice, day: 0, zone: "Asia/Tokyo").json(Snap.self)
            #expect(tokyo.localDate == "2026-03-11")
            let la = try await snap(harness, client, Self.bob, day: 0, zone: "America/Los_Angeles").json(Snap.self)
            #expect(la.localDate == "2026-03-10")
            #expect(la.streaks.map(\.count) == [0])

            // Twelve hours later it is the 11th in Los Angeles too: now the day is complete.
            harness.clock.advance(by: 12 * 3600)
            let completed = try await snap(harness, client, Self.bob, day: 1, zone: "America/Los_Angeles").json(
                Snap.self)
            #expect(completed.localDate == "2026-03-11")
            #expect(completed.streaks.map(\.count) == [1])
            #expect(try await snap(harness, client, Self.bob, day: 2, zone: "America/Los_Angeles").status == .conflict)

            // A month of days, each snapped by both: the count follows, the longest too.
            for day in 2...30 {
                harness.clock.advance(by: 86_400)
                _ = try await snap(harness, client, Self.alice, day: day, zone: "Asia/Tokyo")
                _ = try await snap(harness, client, Self.bob, day: day, zone: "America/Los_Angeles")
            }
            let month = try await client.get(
                "/v1/streaks/\(streak.id)", token: try await harness.token(for: Self.alice)
            )
            .json(Streak.self)
            #expect(month.count == 30)
            #expect(month.longestCount == 30)
            #expect(month.status == .active)

            // Two days without snaps: the streak has lapsed; the longest is remembered.
            harness.clock.advance(by: 3 * 86_400)
            let lapsed = try await client.get("/v1/streaks/\(streak.id)", token: try await harness.token(for: Self.bob))
                .json(Streak.self)
            #expect(lapsed.count == 0)
            #expect(lapsed.status == .broken)
            #expect(lapsed.longestCount == 30)
        }
    }

    @Test func snapsAreCheckedAndStreaksAreOnlyTheirMembers() async throws {
        try await withStreak(at: Date()) { harness, client, _ in
            let streak = try await befriend(harness, client, Self.alice, Self.bob)
            let carol = try await harness.token(for: Self.carol)
            #expect(try await client.get("/v1/streaks/\(streak.id)", token: carol).status == .notFound)
            #expect(try await client.get("/v1/streaks", token: carol).json(Page<Streak>.self).items.isEmpty)
            let cases: [(SnapCreate, HTTPResponse.Status)] = [
                (SnapCreate(mediaId: Self.media(Self.alice, 0), timeZone: "Mars/Olympus"), .badRequest),
                (SnapCreate(mediaId: Self.media(Self.alice, 0), timeZone: "+02:00"), .badRequest),
                (SnapCreate(mediaId: Self.media(Self.alice, 0), timeZone: "Europe/Paris"), .notFound),
                (SnapCreate(mediaId: "x", timeZone: "Europe/Paris"), .badRequest),
            ]
            for (body, status) in cases {
                #expect(try await client.post("/v1/snaps", body, token: carol).status == status, "\(body.timeZone)")
            }
        }
    }

    @Test func aBlockBreaksTheStreakAndStopsRequests() async throws {
        try await withStreak(at: Date()) { harness, client, _ in
            let streak = try await befriend(harness, client, Self.alice, Self.bob)
            let pending = try await client.post(
                "/v1/friends/requests", FriendRequestCreate(userId: Self.alice),
                token: try await harness.token(for: Self.carol)
            ).json(FriendRequest.self)
            let store = try store(harness)
            try await store.database.write { db in
                for event in [
                    UserBlocked(blockerId: Self.bob, blockedId: Self.alice),
                    UserBlocked(blockerId: Self.alice, blockedId: Self.carol),
                ] {
                    try BlockMirror.apply(event, in: db)
                    try store.blocked(event, at: Date(), in: db)
                }
            }
            let alice = try await harness.token(for: Self.alice)
            #expect(try await client.get("/v1/streaks/\(streak.id)", token: alice).json(Streak.self).status == .broken)
            // Its deadline goes, and each stops reading the other's snaps (Carol was never a friend).
            #expect(
                try harness.outboxEvents(MediaSharingEnded.self).map { Set($0.userIds) } == [[Self.alice, Self.bob]])
            let jobs = try await store.database.read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM kit_job WHERE kind = 'streak.deadline'")
            }
            #expect(jobs == 0)
            #expect(
                try await client.post("/v1/friends/requests", FriendRequestCreate(userId: Self.bob), token: alice)
                    .status == .notFound)
            #expect(
                try await client.request(.post, "/v1/friends/requests/\(pending.id)/accept", token: alice).status
                    == .conflict)
        }
    }

    /// StreakSnap: "suspension breaks all the user's streaks".
    @Test func aSuspensionBreaksEveryStreakOfTheUserWithoutRecoveryAndBothAreTold() async throws {
        try await withStreak(at: Self.instant("2026-03-10T10:00:00Z")) { harness, client, _ in
            let withBob = try await befriend(harness, client, Self.alice, Self.bob).id
            let withCarol = try await befriend(harness, client, Self.alice, Self.carol).id
            let bobAndCarol = try await befriend(harness, client, Self.bob, Self.carol).id
            for day in 0..<2 {
                for user in [Self.alice, Self.bob, Self.carol] {
                    _ = try await snap(harness, client, user, day: day, zone: "UTC")
                }
                if day == 0 { harness.clock.advance(by: 86_400) }
            }
            #expect(try await streak(harness, client, withBob, as: Self.bob).count == 2)
            let store = try store(harness)
            try await store.database.write { db in
                try store.restricted(Self.alice, .suspended, at: harness.clock.now(), in: db)
            }
            for id in [withBob, withCarol] {
                let seen = try await streak(harness, client, id, as: Self.alice)
                #expect(seen.status == .broken && seen.count == 0 && seen.recoverableUntil == nil)
                #expect(seen.brokenCount == 2 && seen.missedBy == [Self.alice])
            }
            // Others' streaks go on; both members of each broken one hear of it.
            #expect(try await streak(harness, client, bobAndCarol, as: Self.bob).status == .active)
            let broken = try harness.outboxEvents(StreakBroken.self)
            #expect(Set(broken.map(\.streakId)) == [withBob, withCarol])
            #expect(broken.allSatisfy { $0.recoverableUntil == nil && $0.missedBy == [Self.alice] })
            // A recovery token cannot bring it back (refused before the balance is asked).
            let recover = try await client.request(
                .post, "/v1/streaks/\(withBob)/recover", token: try await harness.token(for: Self.bob))
            #expect(recover.status == .conflict && recover.error?.code == .recoveryUnavailable)
            #expect(try await streak(harness, client, withBob, as: Self.bob).status == .broken)
        }
    }

    @Test func friendSearchShowsWhereEachPersonStandsWithoutTheSearcherOrBlockedPeople() async throws {
        try await withStreak(at: Date()) { harness, client, _ in
            _ = try await befriend(harness, client, Self.alice, Self.bob)
            let incoming = try await client.post(
                "/v1/friends/requests", FriendRequestCreate(userId: Self.alice),
                token: try await harness.token(for: Self.carol)
            ).json(FriendRequest.self)
            let alice = try await harness.token(for: Self.alice)
            let outgoing = try await client.post(
                "/v1/friends/requests", FriendRequestCreate(userId: Self.dave), token: alice
            ).json(FriendRequest.self)
            try await harness.database().write { db in
                try BlockMirror.apply(UserBlocked(blockerId: Self.erin, blockedId: Self.alice), in: db)
            }
            let found = try await client.get("/v1/friends/search?q=everyone", token: alice).json(FriendSearch.self)
            // Each with its view: the name from streak's copy of profiles, and whether a friend.
            func person(_ id: String, _ name: String, _ relation: FriendRelation, request: String? = nil) -> FoundUser {
                var found = FoundUser(userId: id, displayName: name, relation: relation, requestId: request)
                found.user = PersonView(
                    id: id, username: nil, displayName: name, relation: PersonRelation(friend: relation == .friend))
                return found
            }
            #expect(
                found.users == [
                    person(Self.bob, "Bob", .friend),
                    person(Self.carol, "Carol", .requestReceived, request: incoming.id),
                    person(Self.dave, "Dave", .requestSent, request: outgoing.id),
                    person(Self.gus, "Gus", .none),
                ])
            let dave = try await harness.token(for: Self.dave)
            let seenByDave = try await client.get("/v1/friends/search?q=everyone", token: dave).json(FriendSearch.self)
            #expect(seenByDave.users.first { $0.userId == Self.alice }?.relation == .requestReceived)
            #expect(!seenByDave.users.contains { $0.userId == Self.dave })
            #expect(
                try await client.get("/v1/friends/search?q=nobody", token: alice).json(FriendSearch.self).users.isEmpty)
            #expect(try await client.get("/v1/friends/search?q=everyone").status == .unauthorized)
        }
    }

    @Test func aMissedDayWarnsThenBreaksAndOneRecoveryRestoresIt() async throws {
        // 10:00 UTC: the same date in Tokyo (19:00) and Los Angeles (03:00).
        try await withStreak(at: Self.instant("2026-03-10T10:00:00Z")) { harness, client, runner in
            let id = try await befriend(harness, client, Self.alice, Self.bob).id
            for day in 0..<5 {
                _ = try await snap(harness, client, Self.alice, day: day, zone: "Asia/Tokyo")
                _ = try await snap(harness, client, Self.bob, day: day, zone: "America/Los_Angeles")
                if day < 4 { harness.clock.advance(by: 86_400) }
            }
            #expect(try await streak(harness, client, id, as: Self.alice).count == 5)

            // The 15th: Alice snaps, Bob does not. The day ends first in Tokyo (15:00 UTC): at
            // 13:00 UTC both hear it is at risk, once; it closes when Los Angeles' day ends.
            harness.clock.set(Self.instant("2026-03-15T10:00:00Z"))
            _ = try await snap(harness, client, Self.alice, day: 5, zone: "Asia/Tokyo")
            harness.clock.set(Self.instant("2026-03-15T12:59:59Z"))
            await runner.runDue()
            #expect(try harness.outboxEvents(StreakAtRisk.self).isEmpty)
            let calm = try await streak(harness, client, id, as: Self.alice)
            #expect(calm.dueDate == "2026-03-15")
            #expect(calm.closesAt == Self.instant("2026-03-16T07:00:00Z"))
            #expect(!calm.atRisk && calm.snappedByMe && !calm.snappedByFriend)

            harness.clock.set(Self.instant("2026-03-15T13:00:00Z"))
            await runner.runDue()
            await runner.runDue()
            let members = [
                StreakMember(userId: Self.alice, displayName: "Alice"),
                StreakMember(userId: Self.bob, displayName: "Bob"),
            ]
            #expect(
                try harness.outboxEvents(StreakAtRisk.self) == [
                    StreakAtRisk(
                        streakId: id, date: "2026-03-15", count: 5, closesAt: Self.instant("2026-03-16T07:00:00Z"),
                        members: members, waitingFor: [Self.bob])
                ])
            #expect(try await streak(harness, client, id, as: Self.bob).atRisk)

            // A read at the close already sees the break; the job then sends it once, and the
            // read after the job agrees with the read before it.
            harness.clock.set(Self.instant("2026-03-16T07:00:00Z"))
            let before = try await streak(harness, client, id, as: Self.alice)
            #expect(before.status == .broken && before.count == 0 && before.brokenCount == 5)
            #expect(before.missedBy == [Self.bob])
            await runner.runDue()
            await runner.runDue()
            #expect(try await streak(harness, client, id, as: Self.alice) == before)
            #expect(
                try harness.outboxEvents(StreakBroken.self) == [
                    StreakBroken(
                        streakId: id, date: "2026-03-15", count: 5, longestCount: 5, members: members,
                        missedBy: [Self.bob], recoverableUntil: Self.instant("2026-03-17T07:00:00Z"))
                ])

            // Recovery costs a token: none is a 402 the app turns into its paywall.
            let alice = try await harness.token(for: Self.alice)
            let broke = try await client.request(.post, "/v1/streaks/\(id)/recover", token: alice)
            #expect(broke.status.code == 402)
            #expect(broke.error?.code == .noRecoveryTokens)
            #expect(
                try await client.request(
                    .post, "/v1/streaks/\(id)/recover", token: try await harness.token(for: Self.carol)
                ).status == .notFound)
            try await harness.database().write { db in
                try StreakStore.credit(
                    RecoveryTokensPurchased(userId: Self.alice, tokens: 2, productId: "pack_3", purchaseId: "pack-1"),
                    at: Date(), in: db)
            }
            let recovered = try await client.request(.post, "/v1/streaks/\(id)/recover", token: alice).json(
                Streak.self)
            #expect(recovered.status == .active && recovered.count == 5 && recovered.recoveryUsed)
            #expect(recovered.lastCompletedDate == "2026-03-15")
            #expect(recovered.dueDate == "2026-03-16")
            #expect(
                try await client.get("/v1/recovery-tokens", token: alice).json(RecoveryTokenBalance.self).balance == 1)
            let twice = try await client.request(.post, "/v1/streaks/\(id)/recover", token: alice)
            #expect(twice.status == .conflict)
            #expect(twice.error?.code == .recoveryUnavailable)

            // The streak goes on from the bridged day; a second miss breaks it for good.
            harness.clock.set(Self.instant("2026-03-16T10:00:00Z"))
            _ = try await snap(harness, client, Self.alice, day: 6, zone: "Asia/Tokyo")
            let kept = try await snap(harness, client, Self.bob, day: 6, zone: "America/Los_Angeles").json(Snap.self)
            #expect(kept.streaks.map(\.count) == [6])
            harness.clock.set(Self.instant("2026-03-18T07:00:00Z"))
            await runner.runDue()
            #expect(try harness.outboxEvents(StreakBroken.self).map(\.date) == ["2026-03-15", "2026-03-17"])
            #expect(try harness.outboxEvents(StreakBroken.self).last?.missedBy == [Self.alice, Self.bob])
            let again = try await client.request(
                .post, "/v1/streaks/\(id)/recover", token: try await harness.token(for: Self.alice))
            #expect(again.error?.code == .recoveryUnavailable)
            #expect(try await streak(harness, client, id, as: Self.bob).longestCount == 6)
        }
    }

    @Test func oneRunOfTheDeadlineJobsMovesEachStreakAsItWouldAlone() async throws {
        try await withStreak(at: Self.instant("2026-03-10T10:00:00Z")) { harness, client, runner in
            let withBob = try await befriend(harness, client, Self.alice, Self.bob).id
            let withCarol = try await befriend(harness, client, Self.alice, Self.carol).id
            let withDave = try await befriend(harness, client, Self.alice, Self.dave).id
            _ = try await snap(harness, client, Self.alice, day: 0, zone: "Asia/Tokyo")
            for friend in [Self.bob, Self.carol, Self.dave] {
                _ = try await snap(harness, client, friend, day: 0, zone: "America/Los_Angeles")
            }
            // The 11th: Bob keeps his streak with Alice; Carol misses hers; nobody snaps for
            // Alice and Dave's.
            harness.clock.set(Self.instant("2026-03-11T10:00:00Z"))
            _ = try await snap(harness, client, Self.alice, day: 1, zone: "Asia/Tokyo", to: [withBob, withCarol])
            _ = try await snap(harness, client, Self.bob, day: 1, zone: "America/Los_Angeles")

            // Both due streaks are claimed and moved by one run (one group), each with its own
            // members and snaps; the kept one waits for tomorrow.
            harness.clock.set(Self.instant("2026-03-11T13:00:00Z"))
            await runner.runDue()
            let atRisk = try harness.outboxEvents(StreakAtRisk.self).sorted { $0.streakId < $1.streakId }
            #expect(atRisk.map(\.streakId) == [withCarol, withDave].sorted())
            #expect(atRisk.first { $0.streakId == withCarol }?.waitingFor == [Self.carol])
            #expect(atRisk.first { $0.streakId == withDave }?.waitingFor == [Self.alice, Self.dave])
            #expect(atRisk.allSatisfy { $0.count == 1 && $0.closesAt == Self.instant("2026-03-12T07:00:00Z") })
            #expect(
                atRisk.first { $0.streakId == withDave }?.members.map(\.displayName) == ["Alice", "Dave"])

            harness.clock.set(Self.instant("2026-03-12T07:00:00Z"))
            let before = [
                try await streak(harness, client, withCarol, as: Self.alice),
                try await streak(harness, client, withDave, as: Self.alice),
            ]
            await runner.runDue()
            let after = [
                try await streak(harness, client, withCarol, as: Self.alice),
                try await streak(harness, client, withDave, as: Self.alice),
            ]
            #expect(after == before)
            #expect(after.allSatisfy { $0.status == .broken && $0.brokenCount == 1 })
            let broken = try harness.outboxEvents(StreakBroken.self)
            #expect(Set(broken.map(\.streakId)) == [withCarol, withDave])
            #expect(broken.first { $0.streakId == withCarol }?.missedBy == [Self.carol])
            #expect(broken.first { $0.streakId == withDave }?.missedBy == [Self.alice, Self.dave])
            let kept = try await streak(harness, client, withBob, as: Self.bob)
            #expect(kept.status == .active && kept.count == 2 && kept.dueDate == "2026-03-12")
        }
    }

    @Test func aSnapPostedWhileTheDeadlinePassIsPlannedCountsWhenThePassSaves() async throws {
        try await withStreak(at: Self.instant("2026-03-10T10:00:00Z")) { harness, client, _ in
            let id = try await befriend(harness, client, Self.alice, Self.bob).id
            _ = try await snap(harness, client, Self.alice, day: 0, zone: "Asia/Tokyo")
            _ = try await snap(harness, client, Self.bob, day: 0, zone: "America/Los_Angeles")
            harness.clock.set(Self.instant("2026-03-11T10:00:00Z"))
            _ = try await snap(harness, client, Self.alice, day: 1, zone: "Asia/Tokyo")

            // The pass settles outside the writer: its plan for 13:00 (Alice's at-risk time)
            // warns that Bob is missing.
            let store = try store(harness)
            let plan = try await store.planDeadlines(of: [id], at: Self.instant("2026-03-11T13:00:00Z"))
            #expect(plan.streaks[id]?.writes?.events.count == 1)
            // Bob snaps before the plan is saved: the writer finds the streak moved and settles
            // it again, so no warning goes out and his kept day is not overwritten.
            harness.clock.set(Self.instant("2026-03-11T12:59:00Z"))
            _ = try await snap(harness, client, Self.bob, day: 1, zone: "America/Los_Angeles")
            try await store.database.write { db in try store.runDeadlines(plan, in: db) }
            #expect(try harness.outboxEvents(StreakAtRisk.self).isEmpty)
            let kept = try await streak(harness, client, id, as: Self.bob)
            #expect(kept.status == .active && kept.count == 2 && kept.snappedByMe && kept.snappedByFriend)
        }
    }

    /// What a public profile shows, as auth asks for it: kept days, an ended friendship.
    @Test func theProfileNumbersFollowTheStreaks() async throws {
        try await withStreak(at: Self.instant("2026-03-10T10:00:00Z")) { harness, client, runner in
            let store = try store(harness)
            _ = try await befriend(harness, client, Self.alice, Self.bob)
            #expect(try await store.profileStats(of: Self.carol, at: harness.clock.now()) == nil)
            #expect(
                try await store.profileStats(of: Self.alice, at: harness.clock.now())
                    == StreakProfileStats(activeStreaks: 1, longestStreak: 0, totalSnaps: 0))
            _ = try await snap(harness, client, Self.alice, day: 0, zone: "UTC")
            _ = try await snap(harness, client, Self.bob, day: 0, zone: "UTC")
            let kept = StreakProfileStats(activeStreaks: 1, longestStreak: 1, totalSnaps: 1)
            #expect(try await store.profileStats(of: Self.alice, at: harness.clock.now()) == kept)
            let screen = try await client.get("/v1/streaks/stats", token: try await harness.token(for: Self.alice))
                .json(StreakStats.self)
            #expect(
                StreakProfileStats(
                    activeStreaks: screen.activeStreaks, longestStreak: screen.longestStreak,
                    totalSnaps: screen.totalSnaps) == kept)

            // Unfriended: no streak stands; the longest and the snaps stay.
            let ended = try await client.request(
                .delete, "/v1/friends/\(Self.bob)", token: try await harness.token(for: Self.alice))
            #expect(ended.status == .noContent)
            #expect(
                try await store.profileStats(of: Self.bob, at: harness.clock.now())
                    == StreakProfileStats(activeStreaks: 0, longestStreak: 1, totalSnaps: 1))
        }
    }

    @Test func aSnapGoesToTheChosenStreaksOncePerStreakAndDay() async throws {
        try await withStreak(at: Self.instant("2026-03-10T10:00:00Z")) { harness, client, _ in
            let withBob = try await befriend(harness, client, Self.alice, Self.bob).id
            let withCarol = try await befriend(harness, client, Self.carol, Self.alice).id
            let alice = try await harness.token(for: Self.alice)
            let cases: [(SnapCreate, HTTPResponse.Status)] = [
                (SnapCreate(mediaId: Self.media(Self.alice, 0), timeZone: "UTC", streakIds: []), .badRequest),
                (SnapCreate(mediaId: Self.media(Self.alice, 0), timeZone: "UTC", streakIds: ["x"]), .badRequest),
                (
                    SnapCreate(
                        mediaId: Self.media(Self.alice, 0), timeZone: "UTC", caption: String(repeating: "a", count: 201)
                    ),
                    .badRequest
                ),
                (
                    SnapCreate(
                        mediaId: Self.media(Self.alice, 0), timeZone: "UTC",
                        streakIds: ["00000000-0000-4000-8000-0000000000ff"]), .notFound
                ),
            ]
            for (body, status) in cases {
                #expect(try await client.post("/v1/snaps", body, token: alice).status == status)
            }
            #expect(try harness.outboxEvents(StreakSnapped.self).isEmpty)

            let first = try await client.post(
                "/v1/snaps",
                SnapCreate(
                    mediaId: Self.media(Self.alice, 0), timeZone: "Europe/Paris", streakIds: [withBob],
                    caption: "  lunch ", prompt: "Show your lunch"),
                token: alice)
            #expect(first.status == .created)
            let sent = try first.json(Snap.self)
            #expect(sent.streaks.map(\.id) == [withBob])
            #expect(sent.caption == "lunch" && sent.prompt == "Show your lunch")
            #expect(
                try harness.outboxEvents(StreakSnapped.self) == [
                    StreakSnapped(
                        streakId: withBob, snapId: sent.id,
                        from: StreakMember(userId: Self.alice, displayName: "Alice"),
                        toUserId: Self.bob)
                ])
            #expect(
                try await snap(harness, client, Self.alice, day: 1, zone: "Europe/Paris", to: [withBob]).status
                    == .conflict)
            // "Send to all" goes where today's snap is still missing; then nowhere is left.
            let rest = try await snap(harness, client, Self.alice, day: 1, zone: "Europe/Paris").json(Snap.self)
            #expect(rest.streaks.map(\.id) == [withCarol])
            #expect(try await snap(harness, client, Self.alice, day: 2, zone: "Europe/Paris").status == .conflict)
            // Someone else's streak is not found, and refuses the whole snap.
            #expect(
                try await snap(harness, client, Self.carol, day: 0, zone: "UTC", to: [withCarol, withBob]).status
                    == .notFound)
            #expect(try harness.outboxEvents(StreakSnapped.self).count == 2)
            let bob = try await snap(harness, client, Self.bob, day: 0, zone: "Europe/Paris").json(Snap.self)
            #expect(bob.streaks.map(\.count) == [1])
            #expect(bob.streaks.first?.snappedByFriend == true)
        }
    }

    /// Also: rows from before the deadline and window jobs get one each, due at once.
    @Test func snapsStoredBeforeSharedSnapsCountInEveryStreakOfTheirSender() throws {
        var migrator = DatabaseMigrator()
        ServiceDatabase.registerKitMigrations(&migrator)
        StreakStore.registerMigrations(&migrator)
        let database = try DatabaseQueue()
        try migrator.migrate(database, upTo: "streak.v3.blocks-to-kit-mirror")
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT INTO streak (id, user_a, user_b, count, longest_count, last_completed_date, status, created_at)
                    VALUES ('s1', ?, ?, 3, 3, '2026-03-10', 'active', '2026-03-01 10:00:00.000'),
                           ('s2', ?, ?, 0, 0, NULL, 'active', '2026-03-01 10:00:00.000');
                    INSERT INTO snap (id, user_id, media_id, local_date, time_zone, created_at)
                    VALUES ('p1', ?, 'm1', '2026-03-10', 'Asia/Tokyo', '2026-03-10 01:00:00.000');
                    """, arguments: [Self.alice, Self.bob, Self.alice, Self.carol, Self.alice])
        }
        try migrator.migrate(database)
        try database.read { db in
            #expect(
                try String.fetchAll(db, sql: "SELECT streak_id FROM streak_snap WHERE snap_id = 'p1' ORDER BY 1")
                    == ["s1", "s2"])
            #expect(
                try String.fetchOne(db, sql: "SELECT time_zone FROM member WHERE user_id = ?", arguments: [Self.alice])
                    == "Asia/Tokyo")
            let streak = try #require(try StreakRecord.fetchOne(db, key: "s1"))
            #expect(streak.progress.dueDay == LocalDay("2026-03-11") && !streak.recoveryUsed)
            let jobs = try JobRecord.all().order(JobRecord.Columns.kind, Column("key")).fetchAll(db)
            #expect(
                jobs.map { "\($0.kind) \($0.key)" }
                    // Bob and Carol never snapped: streak learns their zone when they act.
                    == ["streak.deadline s1", "streak.deadline s2", "streak.window \(Self.alice)"])
            #expect(jobs.allSatisfy { abs($0.dueAt.timeIntervalSinceNow) < 60 && $0.attempts == 0 })
            let payload = try JSONDecoder().decode(StreakDeadline.Job.self, from: jobs[0].payload)
            #expect(payload.streakId == "s1")
        }
    }
}
