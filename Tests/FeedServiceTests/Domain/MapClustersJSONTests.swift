import Contracts
import Foundation
import NIOCore
import ServiceHTTP
import TestSupport
import Testing

@testable import FeedService

/// The clusters answer's hand-written JSON is byte for byte what `JSONEncoder` writes.
@Suite struct MapClustersJSONTests {
    @Test func theClustersReadAsJSONEncoderWritesThem() throws {
        var random = SplitMix(seed: 18)
        func coordinate(_ limit: Double) -> Double {
            // Whole, tiny, negative and long values: every way a double can print.
            switch random.next() % 5 {
            case 0: Double(Int(random.next() % 90))
            case 1: 1e-7 * Double(random.next() % 100)
            case 2: -Double.random(in: 0...limit, using: &random)
            default: Double.random(in: -limit...limit, using: &random)
            }
        }
        let clusters = (0..<500).map { n in
            MapCluster(
                id: "c\(n % 17)-p\(n)\(n % 50 == 0 ? "\"\\/\n\u{1}é" : "")", count: Int(random.next() % 100_000) + 2,
                latitude: coordinate(85), longitude: coordinate(180),
                box: MapBox(
                    minLatitude: coordinate(85), minLongitude: coordinate(180), maxLatitude: coordinate(85),
                    maxLongitude: coordinate(180)),
                expansionZoom: n % 21, postId: "p\(n)")
        }
        // With no single posts, and with some (they go through the encoder).
        let posts = (0..<3).map { n in
            Post(
                id: "p\(n)", authorId: "u\(n)", mediaId: "m\(n)", caption: n == 0 ? nil : "a \"caption\"",
                latitude: coordinate(85), longitude: coordinate(180), score: n, upvotes: n, downvotes: 0,
                myVote: nil, distanceM: nil, createdAt: Date(timeIntervalSince1970: 1_795_756_000.5 + Double(n)))
        }
        for singles in [[], posts] {
            let answer = MapClusters(
                zoom: 12, clusters: clusters, posts: singles, indexedAt: Date(timeIntervalSince1970: 1_795_756_421.123))
            let expected = try JSONCoding.sharedEncoder.encode(answer)
            let written = try MapClustersJSON.encode(answer)
            #expect(String(buffer: written) == String(decoding: expected, as: UTF8.self), "\(singles.count) posts")
        }
    }
}
