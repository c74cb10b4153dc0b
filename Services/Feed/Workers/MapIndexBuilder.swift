import Foundation
import Logging
import MapClustering
import Metrics
import ServiceHTTP
import ServiceLifecycle
import Synchronization

/// The map's cluster index, rebuilt in the background: at start, then whenever posts changed
/// (`map_version` moved), at most every `interval`. Requests read the index built last
/// meanwhile, so a new, hidden or deleted post shows on the clusters within `interval` plus one
/// build (3–3.5 s for a million posts on every core of a slow day, `docs/PERFORMANCE.md`).
///
/// Rebuilt rather than updated in place: Supercluster's levels depend on the order points
/// are visited, so an insert can reshape clusters at every zoom above it; a rebuild keeps them
/// exactly what the algorithm gives (and the ids stable, since seeds are the oldest posts).
final class MapIndexBuilder: Service, Sendable {
    struct Built: Sendable {
        let clusters: PointClusters
        let version: Int64
        let at: Date
    }

    let store: FeedStore
    let clock: any WallClock
    let interval: Duration
    let logger: Logger
    private let current = Mutex<Built?>(nil)

    init(store: FeedStore, clock: any WallClock, interval: Duration, logger: Logger) {
        self.store = store
        self.clock = clock
        self.interval = interval
        self.logger = logger
    }

    /// The index built last; nil until the first build finishes.
    var built: Built? { current.withLock { $0 } }

    func run() async {
        await PeriodicService(interval: interval) {
            do {
                try await self.refresh()
            } catch {
                self.logger.failure("the map's clusters could not be rebuilt", error: error)
            }
        }.run()
    }

    /// Rebuilds when posts changed since the last build (or there is none).
    func refresh() async throws {
        let version = try await store.mapVersion()
        if let built, built.version == version { return }
        let started = ContinuousClock.now
        let (read, points) = try await store.mapPoints()
        let loaded = ContinuousClock.now
        // Seconds of CPU for a big map: on Dispatch's threads (its lookups spread over every
        // core), not on the event loops or the tasks the requests are served on.
        let clusters = await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(returning: PointClusters(points: points))
            }
        }
        current.withLock { $0 = Built(clusters: clusters, version: read, at: clock.now()) }
        let (reading, building) = ((loaded - started).inSeconds, (ContinuousClock.now - loaded).inSeconds)
        Gauge(label: "feed_map_index_points").record(points.count)
        Gauge(label: "feed_map_index_read_seconds").record(reading)
        Gauge(label: "feed_map_index_build_seconds").record(building)
        logger.debug(
            "map clusters rebuilt",
            metadata: ["points": "\(points.count)", "read_seconds": "\(reading)", "build_seconds": "\(building)"])
    }
}
