import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import ServiceKit
import TestSupport
import Testing

@testable import StreakService

@Suite struct StreakRouterTests {
    static let alice = "00000000-0000-4000-8000-00000000000a"
    static let bob = "00000000-0000-4000-8000-00000000000b"
    static let carol = "00000000-0000-4000-8000-00000000000c"
    static let users = [alice: "Alice", bob: "Bob", carol: "Carol"]

    /// One ready photo per user per day index.
    static func media(_ user: String, _ day: Int) -> String {
        String(format: "3%07d-0000-4000-8000-%@", day, String(user.suffix(12)))
    }

    func withStreak(
        at start: Date, _ body: @escaping @Sendable (ServiceHarness, any TestClientProtocol) async throws -> Void
    ) async throws {
        let harness = try ServiceHarness(.streak, clock: ManualClock(start))
        var library: [String: MediaSummary] = [:]
        for user in Self.users.keys {
            for day in 0..<40 {
                let id = Self.media(user, day)
                library[id] = MediaSummary(id: id, ownerId: user, contentType: "image/jpeg", status: .ready)
            }
        }
        let dependencies = StreakDependencies(
            media: .fixed(library),
            users: .fixed(Self.users.reduce(into: [:]) { $0[$1.key] = UserSummary(id: $1.key, displayName: $1.value) }))
        let parts = try await StreakService.buildRouter(
            runtime: harness.runtime, reader: harness.reader, dependencies: dependencies)
        try await harness.test(parts) { client in try await body(harness, client) }
    }

    static func instant(_ text: String) -> Date { try! Date(text, strategy: .iso8601) }

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
        _ harness: ServiceHarness, _ client: some TestClientProtocol, _ user: String, day: Int, zone: String
    ) async throws -> TestResponse {
        try await client.post(
            "/v1/snaps", SnapCreate(mediaId: Self.media(user, day), timeZone: zone),
            token: try await harness.token(for: user))
    }

    @Test func friendRequestsAreCheckedAndNotifyByEvent() async throws {
        try await withStreak(at: Date()) { harness, client in
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
        try await withStreak(at: Self.instant("2026-03-10T20:00:00Z")) { harness, client in
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
        try await withStreak(at: Date()) { harness, client in
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
        try await withStreak(at: Date()) { harness, client in
            let streak = try await befriend(harness, client, Self.alice, Self.bob)
            let pending = try await client.post(
                "/v1/friends/requests", FriendRequestCreate(userId: Self.alice),
                token: try await harness.token(for: Self.carol)
            ).json(FriendRequest.self)
            try await harness.database().write { db in
                for event in [
                    UserBlocked(blockerId: Self.bob, blockedId: Self.alice),
                    UserBlocked(blockerId: Self.alice, blockedId: Self.carol),
                ] {
                    try BlockMirror.apply(event, in: db)
                    try StreakStore.blocked(event, at: Date(), in: db)
                }
            }
            let alice = try await harness.token(for: Self.alice)
            #expect(try await client.get("/v1/streaks/\(streak.id)", token: alice).json(Streak.self).status == .broken)
            #expect(
                try await client.post("/v1/friends/requests", FriendRequestCreate(userId: Self.bob), token: alice)
                    .status == .notFound)
            #expect(
                try await client.request(.post, "/v1/friends/requests/\(pending.id)/accept", token: alice).status
                    == .conflict)
        }
    }
}
