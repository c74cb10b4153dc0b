import Foundation
import HummingbirdTesting
import ServiceHTTP
import TestSupport
import Testing

@testable import StreakService

/// What streak's lists carry for their screens: each request's two people, each friend and
/// streak's friend, and a snap's photo as a view, only once the reader may see it.
extension StreakRouterTests {
    /// A snap sent a moment after its upload shows at once: the snap keeps what media
    /// answered of the photo, before `media.described` reaches streak.
    @Test func aSnapSentJustAfterItsUploadShowsAtOnce() async throws {
        let fresh = Self.media(Self.bob, 0)
        try await withStreak(at: Self.instant("2026-03-10T10:00:00Z"), unmirrored: [fresh]) { harness, client, _ in
            let (alice, bob) = (try await harness.token(for: Self.alice), try await harness.token(for: Self.bob))
            _ = try await client.post("/v1/friends/requests", FriendRequestCreate(userId: Self.bob), token: alice)
            let incoming = try await client.get("/v1/friends/requests?direction=incoming", token: bob)
                .json(Page<FriendRequest>.self).items
            _ = try await client.request(
                .post, "/v1/friends/requests/\(try #require(incoming.first).id)/accept", token: bob)
            #expect(try await snap(harness, client, Self.bob, day: 0, zone: "UTC").status == .created)
            let bobs = try #require(try await feed(harness, client, as: Self.bob).first).today.mine?.media
            #expect(bobs?.id == fresh && bobs?.displayURL != nil)
        }
    }

    @Test func listsCarryTheirPeopleAndASnapsPhotoOnlyOnceRevealed() async throws {
        try await withStreak(at: Self.instant("2026-03-10T10:00:00Z")) { harness, client, _ in
            let (alice, bob) = (try await harness.token(for: Self.alice), try await harness.token(for: Self.bob))
            _ = try await client.post("/v1/friends/requests", FriendRequestCreate(userId: Self.bob), token: alice)
            let incoming = try await client.get("/v1/friends/requests?direction=incoming", token: bob)
                .json(Page<FriendRequest>.self).items
            #expect(incoming.map { [$0.from?.displayName, $0.to?.displayName] } == [["Alice", "Bob"]])
            let accepted = try await client.request(
                .post, "/v1/friends/requests/\(try #require(incoming.first).id)/accept", token: bob)
            #expect(accepted.status == .ok)

            let friends = try await client.get("/v1/friends", token: alice).json(Page<Friend>.self).items
            #expect(friends.map { $0.user?.displayName } == ["Bob"])
            #expect(friends.first?.user?.relation?.friend == true)
            #expect(friends.first?.streak.friend?.displayName == "Bob")

            // Bob snaps: Alice's feed says that he did, and carries no photo of it.
            #expect(try await snap(harness, client, Self.bob, day: 0, zone: "UTC").status == .created)
            var today = try #require(try await feed(harness, client, as: Self.alice).first).today
            #expect(today.friendState == .hidden && today.friend == nil)
            // Bob sees his own photo as a view at once.
            let bobs = try #require(try await feed(harness, client, as: Self.bob).first).today.mine?.media
            #expect(bobs?.id == Self.media(Self.bob, 0) && bobs?.displayURL != nil)

            // Once Alice snaps too, his photo is hers to see, with a placeholder and a view URL.
            #expect(try await snap(harness, client, Self.alice, day: 0, zone: "UTC").status == .created)
            today = try #require(try await feed(harness, client, as: Self.alice).first).today
            let photo = try #require(today.friend?.media)
            #expect(photo.id == Self.media(Self.bob, 0) && photo.placeholder != nil)
            #expect(photo.displayURL?.hasPrefix("/v1/media/views/\(Self.media(Self.bob, 0))/display?exp=") == true)
            #expect(today.mine?.media?.id == Self.media(Self.alice, 0))
        }
    }
}
