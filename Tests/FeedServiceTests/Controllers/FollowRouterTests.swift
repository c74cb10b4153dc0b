import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import FeedService

/// The follow graph through feed's router: following is idempotent and counted on both sides,
/// lists page newest first, blocks undo follows both ways, deletion leaves no trace, and a
/// user's counts travel to auth with a growing revision.
@Suite struct FollowRouterTests {
    static let alice = "00000000-0000-4000-8000-00000000000a"
    static let bob = "00000000-0000-4000-8000-00000000000b"
    static let carol = "00000000-0000-4000-8000-00000000000c"
    static let dave = "00000000-0000-4000-8000-00000000000d"
    static let nobody = "00000000-0000-4000-8000-0000000000ff"

    func withFeed(
        config: [String: String] = [:],
        _ body: @escaping @Sendable (ServiceHarness, FeedStore, any TestClientProtocol) async throws -> Void
    ) async throws {
        let harness = try ServiceHarness(.feed, config: config)
        let people = [(Self.alice, "Alice"), (Self.bob, "Bob"), (Self.carol, "Carol"), (Self.dave, "Dave")]
            .map { UserSummary(id: $0.0, displayName: $0.1, username: $0.1.lowercased()) }
        let users = Lookup<UserSummary>.fixed(Dictionary(uniqueKeysWithValues: people.map { ($0.id, $0) }))
        let media = Lookup<MediaSummary>.fixed([
            "10000000-0000-4000-8000-000000000001": MediaSummary(
                id: "10000000-0000-4000-8000-000000000001", ownerId: Self.alice, contentType: "image/jpeg",
                status: .ready)
        ])
        let parts = try await FeedService.buildRouter(
            runtime: harness.runtime, reader: harness.reader, dependencies: FeedDependencies(media: media, users: users)
        )
        let store = try FeedStore.opened(beside: harness)
        try harness.mirror(people: people)
        try await harness.test(parts) { client in try await body(harness, store, client) }
    }

    func follow(
        _ harness: ServiceHarness, _ client: some TestClientProtocol, _ user: String, by follower: String,
        _ method: HTTPRequest.Method = .put
    ) async throws -> TestResponse {
        try await client.request(method, "/v1/users/\(user)/follow", token: try await harness.token(for: follower))
    }

    func list(
        _ harness: ServiceHarness, _ client: some TestClientProtocol, _ path: String, as viewer: String
    ) async throws -> [String] {
        try await client.allPages(path + "?limit=2", token: try await harness.token(for: viewer), of: FollowEntry.self)
            .map(\.user.id)
    }

    @Test func followingIsIdempotentCountedOnBothSidesAndListedNewestFirst() async throws {
        try await withFeed { harness, _, client in
            let followed = try await follow(harness, client, Self.alice, by: Self.bob)
            #expect(followed.status == .ok)
            #expect(
                try followed.json(FollowState.self)
                    == FollowState(
                        userId: Self.alice, following: true, followsYou: false, counts: ProfileCounts(followers: 1)))
            // Again: nothing changes, nobody is told twice.
            #expect(
                try await follow(harness, client, Self.alice, by: Self.bob).json(FollowState.self).counts.followers == 1
            )
            #expect(
                try harness.outboxEvents(UserFollowed.self) == [
                    UserFollowed(follower: EventActor(userId: Self.bob, displayName: "Bob"), followeeId: Self.alice)
                ])
            for follower in [Self.carol, Self.dave] {
                harness.clock.advance(by: 1)
                #expect(try await follow(harness, client, Self.alice, by: follower).status == .ok)
            }
            harness.clock.advance(by: 1)
            let back = try await follow(harness, client, Self.bob, by: Self.alice).json(FollowState.self)
            #expect(back.following && back.followsYou && back.counts == ProfileCounts(followers: 1, following: 1))

            #expect(
                try await list(harness, client, "/v1/users/\(Self.alice)/followers", as: Self.carol) == [
                    Self.dave, Self.carol, Self.bob,
                ])
            #expect(try await list(harness, client, "/v1/users/\(Self.alice)/following", as: Self.carol) == [Self.bob])
            let entry = try await client.get(
                "/v1/users/\(Self.alice)/following", token: try await harness.token(for: Self.carol)
            ).json(Page<FollowEntry>.self).items[0]
            #expect(
                entry.user
                    == PersonView(
                        id: Self.bob, username: "bob", displayName: "Bob",
                        relation: PersonRelation(following: false, followsYou: false, muted: false)))

            // Unfollowing is idempotent too, and counted.
            let after = try await follow(harness, client, Self.alice, by: Self.carol, .delete).json(FollowState.self)
            #expect(!after.following && after.counts == ProfileCounts(followers: 2, following: 1))
            #expect(try await follow(harness, client, Self.alice, by: Self.carol, .delete).status == .ok)
            let seen = try await client.get(
                "/v1/users/\(Self.alice)/follow", token: try await harness.token(for: Self.bob)
            ).json(FollowState.self)
            #expect(seen.following && seen.followsYou && seen.counts == ProfileCounts(followers: 2, following: 1))

            // Every change published Alice's counts with a growing revision.
            let alices = try harness.outboxEvents(ProfileCountsChanged.self).filter { $0.userId == Self.alice }
            #expect(alices.map(\.revision) == Array(1...alices.count))
            #expect(alices.last?.counts == ProfileCounts(followers: 2, following: 1))
        }
    }

    @Test func badFollowsAreRefusedAndChangeNothing() async throws {
        try await withFeed(config: ["feed.follows.perDay": "2"]) { harness, _, client in
            let me = try await follow(harness, client, Self.alice, by: Self.alice)
            #expect(me.status == .badRequest && me.error?.code == .validationFailed)
            #expect(try await follow(harness, client, Self.nobody, by: Self.alice).status == .notFound)
            #expect(
                try await client.request(
                    .put, "/v1/users/not-an-id/follow", token: try await harness.token(for: Self.bob)
                )
                .status == .notFound)
            #expect(try await client.request(.put, "/v1/users/\(Self.alice)/follow").status == .unauthorized)
            let bad = try await client.get(
                "/v1/users/\(Self.alice)/followers?cursor=nonsense", token: try await harness.token(for: Self.bob))
            #expect(bad.status == .badRequest && bad.error?.code == .invalidCursor)
            #expect(try harness.outboxTypes().isEmpty)

            // Two a day here: the third is 429, and the day after it passes.
            #expect(try await follow(harness, client, Self.bob, by: Self.alice).status == .ok)
            #expect(try await follow(harness, client, Self.carol, by: Self.alice).status == .ok)
            let third = try await follow(harness, client, Self.dave, by: Self.alice)
            #expect(third.status == .tooManyRequests && third.headers[.retryAfter] != nil)
            #expect(try await list(harness, client, "/v1/users/\(Self.alice)/following", as: Self.alice).count == 2)
            harness.clock.advance(by: 86400)
            #expect(try await follow(harness, client, Self.dave, by: Self.alice).status == .ok)
        }
    }

    @Test func aBlockUndoesFollowsBothWaysAndHidesEitherSide() async throws {
        try await withFeed { harness, store, client in
            for (user, follower) in [
                (Self.alice, Self.bob), (Self.bob, Self.alice), (Self.alice, Self.carol), (Self.carol, Self.dave),
            ] {
                #expect(try await follow(harness, client, user, by: follower).status == .ok)
            }
            try await store.database.write { db in
                let event = UserBlocked(blockerId: Self.alice, blockedId: Self.bob)
                try BlockMirror.apply(event, in: db)
                try store.blocked(event, at: harness.clock.now(), in: db)
            }
            // Neither sees the other, nor can follow again; Carol still sees both, unlinked:
            // Alice keeps Carol as a follower and follows nobody now.
            let bob = try await harness.token(for: Self.bob)
            #expect(try await client.get("/v1/users/\(Self.alice)/follow", token: bob).status == .notFound)
            #expect(try await client.get("/v1/users/\(Self.alice)/followers", token: bob).status == .notFound)
            #expect(try await follow(harness, client, Self.alice, by: Self.bob).status == .notFound)
            #expect(
                try await list(harness, client, "/v1/users/\(Self.alice)/followers", as: Self.carol) == [Self.carol])
            #expect(
                try await list(harness, client, "/v1/users/\(Self.alice)/following", as: Self.carol).isEmpty)
            let alice = try await client.get(
                "/v1/users/\(Self.alice)/follow", token: try await harness.token(for: Self.carol)
            ).json(FollowState.self)
            #expect(alice.counts == ProfileCounts(followers: 1, following: 0))
            // Carol's list of followers leaves out Bob for Alice, who blocked him.
            harness.clock.advance(by: 1)
            #expect(try await follow(harness, client, Self.carol, by: Self.bob).status == .ok)
            #expect(try await list(harness, client, "/v1/users/\(Self.carol)/followers", as: Self.alice) == [Self.dave])
            #expect(
                try await list(harness, client, "/v1/users/\(Self.carol)/followers", as: Self.dave) == [
                    Self.bob, Self.dave,
                ])
        }
    }

    @Test func postsCountAndADeletionLeavesNoFollowBehind() async throws {
        try await withFeed { harness, store, client in
            let post = try await client.post(
                "/v1/posts",
                CreatePostRequest(
                    mediaId: "10000000-0000-4000-8000-000000000001", caption: nil, latitude: 1, longitude: 1),
                token: try await harness.token(for: Self.alice))
            #expect(post.status == .created)
            for follower in [Self.bob, Self.carol] {
                #expect(try await follow(harness, client, Self.alice, by: follower).status == .ok)
            }
            #expect(try await follow(harness, client, Self.bob, by: Self.alice).status == .ok)
            let state = try await follow(harness, client, Self.alice, by: Self.dave, .get).json(FollowState.self)
            #expect(state.counts == ProfileCounts(followers: 2, following: 1, posts: 1))

            try await store.database.write { db in
                try FeedStore.erase(userID: Self.alice, jobs: store.jobs, outbox: store.outbox, in: db)
            }
            for user in [Self.bob, Self.carol] {
                let counts = try await follow(harness, client, user, by: Self.dave, .get).json(FollowState.self).counts
                #expect(counts == ProfileCounts())
            }
            let rows = try await store.database.read { db in
                try Int.fetchOne(
                    db,
                    sql:
                        "SELECT (SELECT COUNT(*) FROM follow) + (SELECT COUNT(*) FROM profile_count WHERE user_id = ?)",
                    arguments: [Self.alice])
            }
            #expect(rows == 0)
            // Bob's and Carol's last published counts say so too.
            let last = Dictionary(
                try harness.outboxEvents(ProfileCountsChanged.self).map { ($0.userId, $0.counts) }
            ) { _, new in new }
            #expect(last[Self.bob] == ProfileCounts() && last[Self.carol] == ProfileCounts())
        }
    }
}
