import Foundation
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import FeedService

/// Ranked nearby: votes decayed by age, and pages that neither repeat nor skip a post
/// when votes arrive between them.
extension FeedRouterTests {
    @Test func theTimeDecayOrdersFreshVotesAboveOldOnes() {
        let now = Date(timeIntervalSince1970: 1_000_000)
        func post(_ id: String, up: Int, down: Int = 0, hoursAgo: Double) -> TimeDecayRanking.Candidate {
            .init(postId: id, votes: up - down, createdAt: now.addingTimeInterval(-hoursAgo * 3600))
        }
        let order = TimeDecayRanking.rank(
            [
                post("week-old, 60 up", up: 60, hoursAgo: 168),
                post("a day old, 10 up", up: 10, hoursAgo: 24),
                post("an hour old, 3 up", up: 3, hoursAgo: 1),
                post("just now, no votes", up: 0, hoursAgo: 0),
                post("an hour old, no votes", up: 0, hoursAgo: 1),
                post("just now, 3 down", up: 0, down: 3, hoursAgo: 0),
                post("a day old, 3 down", up: 0, down: 3, hoursAgo: 24),
            ], now: now)
        #expect(
            order == [
                "an hour old, 3 up",  // 4 / 3^1.8 = 0.552
                "just now, no votes",  // 1 / 2^1.8 = 0.287
                "an hour old, no votes",  // 1 / 3^1.8 = 0.138
                "a day old, 10 up",  // 11 / 26^1.8 = 0.031
                "week-old, 60 up",  // 61 / 170^1.8 = 0.0059
                "just now, 3 down",  // −2 × 2^1.8 = −6.96
                "a day old, 3 down",  // −2 × 26^1.8 = −704: downvoted posts sink as they age
            ])
    }

    @Test func rankedPagesNeitherRepeatNorSkipWhenVotesArriveBetweenThem() async throws {
        try await withFeed { harness, client in
            // Nine posts an hour apart (each signed in afresh: tokens last an hour); the oldest
            // ones get a few votes.
            var posts: [Post] = []
            for n in 0..<9 {
                let alice = try await harness.token(for: Self.alice)
                posts.append(try await create(client, token: alice, media: 160 + n, lat: 48.8566, lon: 2.3522))
                harness.clock.advance(by: 3600)
            }
            let alice = try await harness.token(for: Self.alice)
            let bob = try await harness.token(for: Self.bob)
            let voters = (0..<5).map { String(format: "20000000-0000-4000-8000-%012d", $0) }
            var tokens: [String] = []
            for voter in voters { tokens.append(try await harness.token(for: voter)) }
            for (index, post) in posts.prefix(3).enumerated() {
                for token in tokens.prefix(index + 1) {
                    let voted = try await client.send(
                        .put, "/v1/posts/\(post.id)/vote", VoteRequest(value: .up), token: token)
                    #expect(voted.status == .ok)
                }
            }
            let circle = "/v1/feed/nearby?lat=48.8566&lon=2.3522&radius_m=1000&sort=ranked&limit=4"
            let first = try await client.get(circle, token: bob).json(Page<Post>.self)
            #expect(first.items.count == 4)
            // Between pages: the post ranked last gets every vote there is, and a new post arrives.
            let last = try #require(posts.first { post in !first.items.contains { $0.id == post.id } })
            for token in tokens {
                _ = try await client.send(.put, "/v1/posts/\(last.id)/vote", VoteRequest(value: .up), token: token)
            }
            let newcomer = try await create(client, token: alice, media: 170, lat: 48.8566, lon: 2.3522)
            var seen = first.items.map(\.id)
            var cursor = first.nextCursor
            while let next = cursor {
                let page = try await client.get(circle + "&cursor=\(next)", token: bob).json(Page<Post>.self)
                seen += page.items.map(\.id)
                cursor = page.nextCursor
            }
            #expect(seen.count == 9 && Set(seen) == Set(posts.map(\.id)), "\(seen)")
            // A new first page ranks afresh: the newcomer and the voted post are in it.
            let again = try await client.get(circle, token: bob).json(Page<Post>.self)
            #expect(again.items.contains { $0.id == newcomer.id } && again.items.contains { $0.id == last.id })

            // What the reader may not see is skipped and the pages still fill: two of that first
            // page are hidden, and the ten posts read as eight in pages of four.
            let outbox = harness.runtime.makeOutbox()
            let hidden = Set(again.items.prefix(2).map(\.id))
            try await harness.database().write { db in
                for id in hidden { try FeedStore.hide(.post, id, at: Date(), outbox: outbox, in: db) }
            }
            var shown: [String] = []
            var pages = 0
            var after: String?
            repeat {
                let page = try await client.get(circle + (after.map { "&cursor=\($0)" } ?? ""), token: bob)
                    .json(Page<Post>.self)
                #expect(page.items.count == 4)
                shown += page.items.map(\.id)
                pages += 1
                after = page.nextCursor
            } while after != nil && pages < 5
            #expect(shown.count == 8 && Set(shown).count == 8 && Set(shown).isDisjoint(with: hidden), "\(shown)")

            let wrong = try await client.get(
                "/v1/feed/nearby?lat=48.8566&lon=2.3522&radius_m=1000&sort=best", token: bob)
            #expect(wrong.status == .badRequest)
            // A cursor of the newest order is not one of the ranked order.
            let newest = try await client.get(
                "/v1/feed/nearby?lat=48.8566&lon=2.3522&radius_m=1000&limit=2", token: bob
            ).json(Page<Post>.self)
            let mixed = try await client.get(circle + "&cursor=\(try #require(newest.nextCursor))", token: bob)
            #expect(mixed.status == .badRequest)
        }
    }
}
