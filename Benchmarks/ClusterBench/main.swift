import Foundation
import GRDB
import MapClustering

// Feed's cluster index in a process of its own, timed as scripts/bench-clusters times
// pysupercluster on the same points in the same run, so the two are compared alike:
//
//   cluster-bench <feed.sqlite> <minLat> <minLon> <maxLat> <maxLon>
//
// Reads the map's points from feed's store as feed does (oldest post first), builds the index
// (every core, as feed builds it), then asks for the world view (zoom 2) and the city view
// given (zoom 12) 200 times each way: back to back (hot: the index in the CPU's caches) and
// with 64 MiB written between two queries (cold: as in a server, where handling each request
// evicts the index). Prints, as the script's pysupercluster part does:
//   world <entries> <hot p50> <hot p99> <cold p50> <cold p99>   (milliseconds)
//   city  <entries> <hot p50> <hot p99> <cold p50> <cold p99>
//   build <seconds>

let arguments = Array(CommandLine.arguments.dropFirst())
let box = arguments.dropFirst().compactMap(Double.init)
guard arguments.count == 5, box.count == 4 else {
    FileHandle.standardError.write(
        Data("usage: cluster-bench <feed.sqlite> <minLat> <minLon> <maxLat> <maxLon>\n".utf8))
    exit(64)
}

var configuration = Configuration()
configuration.readonly = true
let store = try DatabaseQueue(path: arguments[0], configuration: configuration)
// The points and order of FeedStore.mapPoints.
let points = try store.read { db in
    let cursor = try Row.fetchCursor(
        db,
        sql: """
            SELECT id, latitude, longitude FROM post
            WHERE latitude IS NOT NULL AND media_id IS NOT NULL AND parent_id IS NULL
            AND hidden_at IS NULL AND deleted_at IS NULL AND media_state = 'ready'
            ORDER BY created_ms, id
            """)
    var points: [(id: String, latitude: Double, longitude: Double)] = []
    while let row = try cursor.next() { points.append((row[0], row[1], row[2])) }
    return points
}

let clock = ContinuousClock()
let started = clock.now
let index = PointClusters(points: points)
let build = started.duration(to: clock.now)

func milliseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
}

/// Evicts the index from the caches: 64 MiB read and written, as the peer's `junk += 1`.
var junk = [UInt8](repeating: 1, count: 64 << 20)
func evict(_ junk: inout [UInt8]) {
    junk.withUnsafeMutableBufferPointer { bytes in
        for position in bytes.indices { bytes[position] &+= 1 }
    }
}

let views = [
    (name: "world", minLatitude: -85.0, minLongitude: -180.0, maxLatitude: 85.0, maxLongitude: 180.0, zoom: 2),
    (name: "city", minLatitude: box[0], minLongitude: box[1], maxLatitude: box[2], maxLongitude: box[3], zoom: 12),
]
for view in views {
    func query() -> [PointClusters.Found] {
        index.entries(
            minLatitude: view.minLatitude, minLongitude: view.minLongitude, maxLatitude: view.maxLatitude,
            maxLongitude: view.maxLongitude, zoom: view.zoom)
    }
    let entries = query().count
    var figures: [String] = []
    for cold in [false, true] {
        var times: [Double] = []
        for _ in 0..<200 {
            if cold { evict(&junk) }
            let start = clock.now
            let found = query()
            times.append(milliseconds(start.duration(to: clock.now)))
            // (Read, so the query is not optimised away, and checked: every query the same.)
            precondition(found.count == entries)
        }
        times.sort()
        // The peer's positions: 100 and 197 of 200.
        figures += [String(format: "%.3f", times[100]), String(format: "%.3f", times[197])]
    }
    print(view.name, entries, figures.joined(separator: " "))
}
print("build", String(format: "%.2f", milliseconds(build) / 1000))
