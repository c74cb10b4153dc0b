import Foundation
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import FeedService

/// The map through feed's router: clusters of a box at a zoom, posts in a box, and what
/// hiding and blocking do to both.
extension FeedRouterTests {
    func withMap(
        _ body: @escaping @Sendable (ServiceHarness, any TestClientProtocol, MapIndexBuilder) async throws -> Void
    ) async throws {
        let harness = try ServiceHarness(.feed)
        let fake = Lookup<MediaSummary>.fixed(Dictionary(uniqueKeysWithValues: Self.library.map { ($0.id, $0) }))
        let parts = try await FeedService.buildRouter(
            runtime: harness.runtime, reader: harness.reader, dependencies: FeedDependencies(media: fake))
        let index = try #require(parts.services.compactMap { $0 as? MapIndexBuilder }.first)
        try await harness.test(parts) { client in try await body(harness, client, index) }
    }

    func mapClusters(
        _ client: some TestClientProtocol, token: String, box: String, zoom: Int
    ) async throws -> MapClusters {
        let response = try await client.get("/v1/feed/map/clusters?\(box)&zoom=\(zoom)", token: token)
        #expect(response.status == .ok, "\(String(buffer: response.body))")
        // The index query's own time, for benchmarks.
        let timing = response.headers[.serverTiming] ?? ""
        #expect(timing.hasPrefix("index;dur=") && Double(timing.dropFirst("index;dur=".count)) != nil, "\(timing)")
        return try response.json(MapClusters.self)
    }

    @Test func clustersCountEveryPostInTheBoxAndHiddenPostsLeaveThem() async throws {
        try await withMap { harness, client, index in
            let alice = try await harness.token(for: Self.alice)
            let bob = try await harness.token(for: Self.bob)
            // Twelve posts in Paris within a few hundred metres, five in Fiji on both sides of
            // 180°, one in Greenwich.
            var paris: [Post] = []
            for n in 0..<12 {
                harness.clock.advance(by: 1)  // the oldest post is the cluster's seed
                paris.append(
                    try await create(
                        client, token: alice, media: 101 + n, lat: 48.8566 + Double(n) * 0.001, lon: 2.3522))
            }
            var fiji: [Post] = []
            for n in 0..<5 {
                fiji.append(
                    try await create(
                        client, token: alice, media: 120 + n, lat: -17.7, lon: n % 2 == 0 ? 179.95 : -179.95))
            }
            let greenwich = try await create(client, token: alice, media: 130, lat: 51.4779, lon: 0)
            let hiddenID = paris[3].id
            try await index.refresh()

            let world = "minLat=-90&minLon=-180&maxLat=90&maxLon=180"
            for zoom in [0, 3, 8, 12, 16, 20] {
                let answer = try await mapClusters(client, token: bob, box: world, zoom: zoom)
                let total = answer.clusters.reduce(0) { $0 + $1.count } + answer.posts.count
                #expect(total == 18, "zoom \(zoom)")
                for cluster in answer.clusters {
                    #expect(cluster.expansionZoom > zoom && cluster.count > 1)
                    // (The centroid is averaged in projected space and converted back, and boxes
                    // are kept in single precision: a few metres of slack.)
                    #expect(
                        cluster.box.minLatitude - 1e-5 <= cluster.latitude
                            && cluster.latitude <= cluster.box.maxLatitude + 1e-5)
                }
            }
            // A city view of Paris at zoom 10: one cluster of twelve, named after its first post.
            let city = "minLat=48.8&minLon=2.2&maxLat=48.9&maxLon=2.5"
            let parisCluster = try await mapClusters(client, token: bob, box: city, zoom: 10)
            #expect(parisCluster.clusters.map(\.count) == [12] && parisCluster.posts.isEmpty)
            #expect(parisCluster.clusters.first?.postId == paris[0].id)
            #expect(parisCluster.clusters.first?.id.hasSuffix("-\(paris[0].id)") == true)
            // At street level every post is its own marker, with the post itself.
            let street = try await mapClusters(client, token: bob, box: city, zoom: 20)
            #expect(Set(street.posts.map(\.id)) == Set(paris.map(\.id)) && street.clusters.isEmpty)
            // Across the antimeridian, 179°E to 179°W.
            let across = try await mapClusters(
                client, token: bob, box: "minLat=-20&minLon=179&maxLat=-15&maxLon=-179", zoom: 20)
            #expect(Set(across.posts.map(\.id)) == Set(fiji.map(\.id)))
            // The same rebuild keeps the ids.
            let otherPost = try await create(client, token: alice, media: 131, lat: 10, lon: 10)
            try await index.refresh()
            let again = try await mapClusters(client, token: bob, box: city, zoom: 10)
            #expect(again.clusters.map(\.id) == parisCluster.clusters.map(\.id))

            // A hidden post leaves the clusters once the index is rebuilt; a blocked author's
            // post is not shown on its own to the blocker.
            let outbox = harness.runtime.makeOutbox()
            try await harness.database().write { db in
                try FeedStore.hide(
                    .post, hiddenID, at: Date(), outbox: outbox,
                    in: db)
            }
            try await index.refresh()
            let afterHide = try await mapClusters(client, token: bob, box: city, zoom: 10)
            #expect(afterHide.clusters.map(\.count) == [11])
            let streetAfterHide = try await mapClusters(client, token: bob, box: city, zoom: 20)
            #expect(!streetAfterHide.posts.contains { $0.id == hiddenID } && streetAfterHide.posts.count == 11)
            try await harness.database().write { db in
                try BlockMirror.apply(UserBlocked(blockerId: Self.bob, blockedId: Self.alice), in: db)
            }
            let blocked = try await mapClusters(
                client, token: bob, box: "minLat=51&minLon=-1&maxLat=52&maxLon=1", zoom: 20)
            #expect(blocked.posts.isEmpty)
            _ = (greenwich, otherPost)
        }
    }

    @Test func postsInABoxArePagedNewestFirstAcrossTheAntimeridian() async throws {
        try await withMap { harness, client, _ in
            let alice = try await harness.token(for: Self.alice)
            let bob = try await harness.token(for: Self.bob)
            var inside: [Post] = []
            for n in 0..<9 {
                harness.clock.advance(by: 1)
                let post = try await create(
                    client, token: alice, media: 140 + n, lat: -17 + Double(n) * 0.01, lon: n % 2 == 0 ? 179.5 : -179.5)
                inside.append(post)
            }
            _ = try await create(client, token: alice, media: 150, lat: -17, lon: 178)  // west of the box
            _ = try await create(client, token: alice, media: 151, lat: -17, lon: -178)  // east of it
            var seen: [String] = []
            var cursor: String?
            repeat {
                let response = try await client.get(
                    "/v1/feed/map/posts?minLat=-18&minLon=179&maxLat=-16&maxLon=-179&limit=4"
                        + (cursor.map { "&cursor=\($0)" } ?? ""), token: bob)
                let page = try response.json(Page<Post>.self)
                seen += page.items.map(\.id)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen == inside.reversed().map(\.id))

            for query in [
                "map/posts?minLat=-18&minLon=179&maxLat=-16", "map/posts?minLat=10&minLon=0&maxLat=5&maxLon=1",
                "map/posts?minLat=-91&minLon=0&maxLat=5&maxLon=1", "map/posts?minLat=0&minLon=0&maxLat=5&maxLon=181",
                "map/posts?minLat=nan&minLon=0&maxLat=5&maxLon=1",
                "map/clusters?minLat=0&minLon=0&maxLat=5&maxLon=1",
                "map/clusters?minLat=0&minLon=0&maxLat=5&maxLon=1&zoom=21",
                "map/clusters?minLat=0&minLon=0&maxLat=5&maxLon=1&zoom=2.5",
                "map/clusters?minLat=0&minLon=0&maxLat=5&maxLon=1&zoom=2&zoom=3",
            ] {
                let response = try await client.get("/v1/feed/\(query)", token: bob)
                #expect(response.status == .badRequest, "\(query)")
            }
        }
    }
}
