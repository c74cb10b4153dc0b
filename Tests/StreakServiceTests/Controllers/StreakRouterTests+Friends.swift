import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import StreakService

/// Friends: the list, unfriending, nudges and the free plan's streak limit.
extension StreakRouterTests {
    @Test func friendsAreListedWithTheirStreakAndUnfriendingEndsIt() async throws {
        try await withStreak(at: Self.instant("2026-03-10T10:00:00Z")) { harness, client, _ in
            let withBob = try await befriend(harness, client, Self.alice, Self.bob).id
            harness.clock.advance(by: 1)
            let withCarol = try await befriend(harness, client, Self.carol, Self.alice).id
            _ = try await snap(harness, client, Self.alice, day: 0, zone: "UTC")
            _ = try await snap(harness, client, Self.bob, day: 0, zone: "UTC")
            let alice = try await harness.token(for: Self.alice)
            let friends = try await client.get("/v1/friends", token: alice).json(Page<Friend>.self).items
            #expect(friends.map(\.userId) == [Self.carol, Self.bob])
            #expect(friends.map(\.displayName) == ["Carol", "Bob"])
            #expect(friends.map(\.streak.id) == [withCarol, withBob])
            #expect(friends.map(\.streak.count) == [0, 1])

            #expect(try await client.request(.delete, "/v1/friends/\(Self.bob)", token: alice).status == .noContent)
            #expect(try await client.request(.delete, "/v1/friends/\(Self.bob)", token: alice).status == .notFound)
            let bob = try await harness.token(for: Self.bob)
            #expect(try await client.get("/v1/friends", token: bob).json(Page<Friend>.self).items.isEmpty)
            #expect(try await streak(harness, client, withBob, as: Self.bob).status == .broken)
            // The streak is over: no snaps go into it, no deadline is left, and it cannot be recovered.
            #expect(try await snap(harness, client, Self.bob, day: 1, zone: "UTC", to: [withBob]).status == .notFound)
            let jobs = try await harness.database().read { db in
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM kit_job WHERE kind = 'streak.deadline'")
            }
            #expect(jobs == 0)
            // Media stops letting either read the other's snaps.
            #expect(
                try harness.outboxEvents(MediaSharingEnded.self).map { Set($0.userIds) } == [[Self.alice, Self.bob]])
            #expect(
                try await client.request(.post, "/v1/streaks/\(withBob)/recover", token: bob).error?.code
                    == .recoveryUnavailable)
            // Friends again: a fresh streak, under the same id.
            #expect(try await befriend(harness, client, Self.bob, Self.alice).id == withBob)
            #expect(try await streak(harness, client, withBob, as: Self.alice).status == .active)
        }
    }

    @Test func aFriendCanBeNudgedOnceADay() async throws {
        try await withStreak(at: Self.instant("2026-03-10T22:00:00Z")) { harness, client, _ in
            let id = try await befriend(harness, client, Self.alice, Self.bob).id
            let alice = try await harness.token(for: Self.alice)
            #expect(try await client.request(.post, "/v1/friends/\(Self.bob)/nudge", token: alice).status == .noContent)
            let again = try await client.request(.post, "/v1/friends/\(Self.bob)/nudge", token: alice)
            #expect(again.status == .tooManyRequests && again.error?.code == .rateLimitExceeded)
            // Alice's day (UTC before she snaps) ends in two hours.
            #expect(again.headers[.retryAfter] == "7200")
            let carol = try await harness.token(for: Self.carol)
            #expect(try await client.request(.post, "/v1/friends/\(Self.bob)/nudge", token: carol).status == .notFound)
            #expect(
                try harness.outboxEvents(StreakNudged.self) == [
                    StreakNudged(
                        streakId: id, from: StreakMember(userId: Self.alice, displayName: "Alice"), toUserId: Self.bob)
                ])
            harness.clock.advance(by: 7200)
            let later = try await harness.token(for: Self.alice)
            #expect(try await client.request(.post, "/v1/friends/\(Self.bob)/nudge", token: later).status == .noContent)
        }
    }

    /// Sessions as auth answers them: `pro/<user>` is premium, `free/<user>` is not.
    static let plans = Lookup<SessionState> { id in
        let parts = id.split(separator: "/").map(String.init)
        return SessionState(sessionId: id, userId: parts[1], limited: false, roles: [], premium: parts[0] == "pro")
    }

    /// A token of a ``plans`` session.
    func planToken(_ harness: ServiceHarness, _ user: String, pro: Bool) async throws -> String {
        try await harness.token(for: user, session: "\(pro ? "pro" : "free")/\(user)")
    }

    @Test func theFreePlanHoldsThreeActiveStreaksAndProLiftsIt() async throws {
        try await withStreak(at: Self.instant("2026-03-10T10:00:00Z"), sessions: Self.plans) { harness, client, _ in
            func token(_ user: String, pro: Bool = false) async throws -> String {
                try await planToken(harness, user, pro: pro)
            }
            func request(_ from: String, to: String) async throws -> TestResponse {
                try await client.post(
                    "/v1/friends/requests", FriendRequestCreate(userId: to), token: try await token(from))
            }
            for friend in [Self.bob, Self.carol, Self.dave] {
                let sent = try await request(Self.alice, to: friend).json(FriendRequest.self)
                let accepted = try await client.request(
                    .post, "/v1/friends/requests/\(sent.id)/accept", token: try await token(friend))
                #expect(accepted.status == .ok)
            }
            let fourth = try await request(Self.alice, to: Self.erin)
            #expect(fourth.status.code == 402 && fourth.error?.code == .streakLimitReached)
            let asked = try await request(Self.erin, to: Self.alice).json(FriendRequest.self)
            let path = "/v1/friends/requests/\(asked.id)/accept"
            let refused = try await client.request(.post, path, token: try await token(Self.alice))
            #expect(refused.error?.code == .streakLimitReached)
            #expect(try await client.request(.post, path, token: try await token(Self.alice, pro: true)).status == .ok)
        }
    }

    @Test func aFreeSenderIsHeldToTheLimitWhenTheirRequestsAreAccepted() async throws {
        try await withStreak(at: Self.instant("2026-03-10T10:00:00Z"), sessions: Self.plans) { harness, client, _ in
            func token(_ user: String, pro: Bool = false) async throws -> String {
                try await planToken(harness, user, pro: pro)
            }
            // Alice, free and without a streak yet, asks four people at once.
            var requests: [String: FriendRequest] = [:]
            for friend in [Self.bob, Self.carol, Self.dave, Self.erin] {
                requests[friend] = try await client.post(
                    "/v1/friends/requests", FriendRequestCreate(userId: friend), token: try await token(Self.alice)
                ).json(FriendRequest.self)
            }
            func accept(_ friend: String) async throws -> TestResponse {
                try await client.request(
                    .post, "/v1/friends/requests/\(requests[friend]!.id)/accept",
                    token: try await token(friend, pro: true))
            }
            for friend in [Self.bob, Self.carol, Self.dave] { #expect(try await accept(friend).status == .ok) }
            // Erin is on Pro, but a fourth streak would be Alice's: refused, and still pending.
            let refused = try await accept(Self.erin)
            #expect(refused.status == .conflict && refused.error?.code == .friendStreakLimitReached)
            let incoming = try await client.get("/v1/friends/requests", token: try await token(Self.erin))
                .json(Page<FriendRequest>.self).items
            #expect(incoming.map(\.id) == [requests[Self.erin]!.id])
            // One of Alice's friendships ends: Erin's acceptance goes through.
            #expect(
                try await client.request(.delete, "/v1/friends/\(Self.bob)", token: try await token(Self.alice))
                    .status == .noContent)
            #expect(try await accept(Self.erin).status == .ok)
        }
    }

    @Test func onlyTheSenderWithdrawsAPendingRequest() async throws {
        try await withStreak(at: Self.instant("2026-03-10T10:00:00Z")) { harness, client, _ in
            let (alice, bob) = (try await harness.token(for: Self.alice), try await harness.token(for: Self.bob))
            let sent = try await client.post(
                "/v1/friends/requests", FriendRequestCreate(userId: Self.bob), token: alice
            )
            .json(FriendRequest.self)
            let path = "/v1/friends/requests/\(sent.id)"
            // The recipient declines rather than withdraws; a stranger does not find it.
            #expect(try await client.request(.delete, path, token: bob).status == .notFound)
            let carol = try await harness.token(for: Self.carol)
            #expect(try await client.request(.delete, path, token: carol).status == .notFound)
            #expect(try await client.request(.delete, path, token: alice).status == .noContent)
            #expect(try await client.request(.delete, path, token: alice).status == .notFound)
            #expect(
                try await client.get("/v1/friends/requests", token: bob).json(Page<FriendRequest>.self).items.isEmpty)
            #expect(try await client.request(.post, "\(path)/accept", token: bob).status == .notFound)
            // Asked again, and answered: an answered request is no longer the sender's to withdraw.
            let again = try await client.post(
                "/v1/friends/requests", FriendRequestCreate(userId: Self.bob), token: alice
            ).json(FriendRequest.self)
            #expect(
                try await client.request(.post, "/v1/friends/requests/\(again.id)/decline", token: bob).status == .ok)
            let answered = try await client.request(.delete, "/v1/friends/requests/\(again.id)", token: alice)
            #expect(answered.status == .conflict && answered.error?.code == .conflict)
        }
    }
}
