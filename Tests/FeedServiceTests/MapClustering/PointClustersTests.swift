import Foundation
import ServiceHTTP
import TestSupport
import Testing

@testable import MapClustering

/// Map clusters: the same clusters as pysupercluster (Supercluster's C++ port, from PyPI) on
/// the same points, and boxes that cross the antimeridian or reach the poles.
@Suite struct PointClustersTests {
    /// Points around a few "cities" (normal-ish spread, some exactly on one spot) and a thin
    /// scatter elsewhere, from a fixed seed.
    static func cityPoints(count: Int, seed: UInt64) -> [(id: String, latitude: Double, longitude: Double)] {
        var random = SplitMix(seed: seed)
        let cities = [
            (48.8566, 2.3522), (40.7128, -74.0060), (35.6762, 139.6503), (-33.8688, 151.2093),
            (51.5074, -0.1278), (-23.5505, -46.6333), (64.1466, -21.9426), (-17.7134, 178.0650), (71.29, -156.79),
        ]
        return (0..<count).map { index in
            let roll = random.unit()
            let latitude: Double
            let longitude: Double
            if roll < 0.1 {
                latitude = random.unit() * 160 - 80
                longitude = random.unit() * 360 - 180
            } else if roll < 0.15 {
                (latitude, longitude) = cities[index % cities.count]  // one spot, many posts
            } else {
                let city = cities[index % cities.count]
                let spread = 0.02 + 0.5 * random.unit() * random.unit()
                latitude = max(-89.9, min(89.9, city.0 + random.normal() * spread))
                var lon = city.1 + random.normal() * spread
                if lon > 180 { lon -= 360 }
                if lon < -180 { lon += 360 }
                longitude = lon
            }
            return (String(format: "p%06d", index), latitude, longitude)
        }
    }

    @Test func theClustersAreSuperclustersOnTheSamePoints() async throws {
        let points = Self.cityPoints(count: 20_000, seed: 7)
        let clusters = PointClusters(points: points)
        let reference = try await Self.pysupercluster(points, zooms: Array(0...18))
        for zoom in 0...18 {
            let ours = clusters.entries(
                minLatitude: -90, minLongitude: -180, maxLatitude: 90, maxLongitude: 180, zoom: zoom)
            #expect(ours.reduce(0) { $0 + $1.count } == points.count, "zoom \(zoom)")
            let theirs = reference[zoom] ?? []
            #expect(ours.count == theirs.count, "zoom \(zoom): \(ours.count) entries, pysupercluster \(theirs.count)")
            #expect(ours.map(\.count).sorted() == theirs.map(\.count).sorted(), "zoom \(zoom): cluster sizes differ")
            // The same centroids to the last bit: the tree is kdbush's, so each cluster's sum
            // adds its members in the order Supercluster's does.
            let mine = ours.map { "\($0.count) \($0.latitude) \($0.longitude)" }.sorted()
            let them = theirs.map { "\($0.count) \($0.latitude) \($0.longitude)" }.sorted()
            let differing = Set(mine).symmetricDifference(them)
            #expect(
                differing.isEmpty, "zoom \(zoom): \(differing.count) differ, such as \(differing.sorted().prefix(4))")
        }
        // Above the highest clustering zoom every post is on its own.
        let street = clusters.entries(
            minLatitude: -90, minLongitude: -180, maxLatitude: 90, maxLongitude: 180, zoom: 20)
        #expect(street.count == points.count && street.allSatisfy { !$0.isCluster })
    }

    @Test func boxesAcrossTheAntimeridianAndAtThePoles() {
        let points: [(id: String, latitude: Double, longitude: Double)] = [
            ("fiji-east", -17.7, 179.9), ("fiji-west", -17.7, -179.9), ("greenwich", 51.48, 0),
            ("north", 89.99, 20), ("south", -89.99, -20),
        ]
        let clusters = PointClusters(points: points)
        // 170°E to 170°W, the short way across 180°.
        let across = clusters.entries(minLatitude: -30, minLongitude: 170, maxLatitude: 0, maxLongitude: -170, zoom: 18)
        #expect(Set(across.map(\.postID)) == ["fiji-east", "fiji-west"])
        // At a world zoom the two are one cluster whose box spans the whole width it covers.
        let world = clusters.entries(minLatitude: -90, minLongitude: -180, maxLatitude: 90, maxLongitude: 180, zoom: 0)
        #expect(world.reduce(0) { $0 + $1.count } == 5)
        let fiji = world.first { $0.postID == "fiji-east" || $0.postID == "fiji-west" }
        #expect(fiji.map { $0.count } == 1, "the two are 0.2° apart across 180°: a flat map keeps them apart")
        // The poles: a box reaching ±90 includes the points beyond the projection's edge.
        let top = clusters.entries(minLatitude: 80, minLongitude: -180, maxLatitude: 90, maxLongitude: 180, zoom: 18)
        #expect(top.map(\.postID) == ["north"])
        let bottom = clusters.entries(
            minLatitude: -90, minLongitude: -180, maxLatitude: -80, maxLongitude: 180, zoom: 18)
        #expect(bottom.map(\.postID) == ["south"])
        // Ids: a post is its own id; a cluster is named by the zoom it formed at and its seed.
        let paris = PointClusters(points: [("a", 48.85, 2.35), ("b", 48.851, 2.351), ("c", 48.852, 2.352)])
        let city = paris.entries(minLatitude: 48, minLongitude: 2, maxLatitude: 49, maxLongitude: 3, zoom: 10)
        #expect(city.count == 1 && city[0].count == 3 && city[0].postID == "a")
        #expect(city[0].id == "c\(city[0].formedAt!)-a" && city[0].expansionZoom == city[0].formedAt! + 1)
        // (Boxes are kept in single precision: within a few metres.)
        #expect(abs(city[0].minLatitude - 48.85) < 1e-5 && abs(city[0].maxLongitude - 2.352) < 1e-5)
    }

    /// Thousands of posts at one spot (a stadium, or apps that send a coarse place) make more
    /// neighbours than an entry's list holds: the first of them takes all the others, at every
    /// zoom, and nothing is counted twice or lost.
    /// Unum zooms to a cluster's box: it holds every post the cluster counts, exactly (four
    /// posts within 330 m in Alabama once came back in a box that cut one of them off).
    @Test func aClustersBoxHoldsEveryPostItCounts() {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let center = (
                latitude: Double.random(in: -60...60, using: &random),
                longitude: Double.random(in: -170...170, using: &random)
            )
            let points = (0..<4).map { n in
                (
                    id: "p\(n)", latitude: center.latitude + Double.random(in: -0.0015...0.0015, using: &random),
                    longitude: center.longitude + Double.random(in: -0.0015...0.0015, using: &random)
                )
            }
            let clusters = PointClusters(points: points)
            for zoom in [5, 20] {
                let found = clusters.entries(
                    minLatitude: -90, minLongitude: -180, maxLatitude: 90, maxLongitude: 180, zoom: zoom)
                #expect(found.reduce(0) { $0 + $1.count } == 4)
                // At zoom 5 the four are one cluster; at 20 each is its own, its box its point.
                for point in points {
                    let holders = found.filter { box in
                        (box.minLatitude...box.maxLatitude).contains(point.latitude)
                            && (box.minLongitude...box.maxLongitude).contains(point.longitude)
                    }
                    #expect(!holders.isEmpty, "zoom \(zoom): \(point) outside every box of \(found)")
                }
            }
        }
    }

    @Test func aCrowdAtOneSpotIsOneClusterSeededByItsFirstPost() {
        let crowd = (0..<5000).map { (id: "crowd\($0)", latitude: 51.5560, longitude: -0.2796) }
        // A ring of posts 2 km away, one between each two of the crowd's.
        let ring = (0..<100).map { n in
            let angle = Double(n) / 100 * 2 * .pi
            return (id: "ring\(n)", latitude: 51.5560 + 0.018 * sin(angle), longitude: -0.2796 + 0.029 * cos(angle))
        }
        var points: [(id: String, latitude: Double, longitude: Double)] = []
        for (index, point) in crowd.enumerated() {
            points.append(point)
            if index % 50 == 25 { points.append(ring[index / 50]) }
        }
        #expect(PointClusters.listLimit < crowd.count)
        let clusters = PointClusters(points: points)
        for zoom in 0...17 {
            let found = clusters.entries(
                minLatitude: -90, minLongitude: -180, maxLatitude: 90, maxLongitude: 180, zoom: zoom)
            #expect(found.reduce(0) { $0 + $1.count } == points.count, "zoom \(zoom)")
            if zoom == 16 {
                let biggest = found.max { $0.count < $1.count }
                #expect(biggest?.postID == "crowd0" && biggest?.count == crowd.count)
                #expect(found.count == 1 + ring.count)
            }
        }
    }

    /// pysupercluster's clusters of the whole world at each zoom, same parameters (radius 40,
    /// extent 512, zooms 0–16).
    static func pysupercluster(
        _ points: [(id: String, latitude: Double, longitude: Double)], zooms: [Int]
    ) async throws -> [Int: [(count: Int, latitude: Double, longitude: Double)]] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("clusters-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("points.csv")
        let result = directory.appendingPathComponent("clusters.txt")
        try points.map { "\($0.longitude),\($0.latitude)" }.joined(separator: "\n")
            .write(to: input, atomically: true, encoding: .utf8)
        let script = """
            import json, sys
            import numpy, pysupercluster
            points = numpy.loadtxt(sys.argv[1], delimiter=",", dtype=numpy.float64)
            index = pysupercluster.SuperCluster(points, min_zoom=0, max_zoom=16, radius=40, extent=512)
            # One line per entry, its coordinates as Python's shortest round-trip text: read
            # back with Double(_:), they are the same doubles (JSON parsing may round).
            with open(sys.argv[3], "w") as out:
                for zoom in json.loads(sys.argv[2]):
                    for c in index.getClusters(top_left=(-180, 90), bottom_right=(180, -90), zoom=zoom):
                        print(zoom, c["count"], repr(c["latitude"]), repr(c["longitude"]), file=out)
            """
        let output = LineCollector()
        let python = try ChildProcess(
            name: "pysupercluster", executable: URL(fileURLWithPath: "/usr/bin/env"),
            arguments: ["python3", "-c", script, input.path, "\(zooms)", result.path],
            environment: ProcessInfo.processInfo.environment, onLine: output.append)
        guard await python.waitForExit() == 0, let data = FileManager.default.contents(atPath: result.path) else {
            let problem = output.lines.joined(separator: "\n")
            throw ReferenceError("pysupercluster failed (./scripts/setup installs it): \(problem)")
        }
        var clusters: [Int: [(count: Int, latitude: Double, longitude: Double)]] = [:]
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 4, let zoom = Int(fields[0]), let count = Int(fields[1]),
                let latitude = Double(fields[2]), let longitude = Double(fields[3])
            else { throw ReferenceError("pysupercluster printed \(line)") }
            clusters[zoom, default: []].append((count, latitude, longitude))
        }
        return clusters
    }

    struct ReferenceError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
