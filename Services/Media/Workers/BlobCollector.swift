import Foundation
import GRDB
import Logging
import ServiceHTTP
import ServiceLifecycle
import ServiceStore

/// Deletes blobs no row uses (left by a crash between storing bytes and recording them, by
/// rejected media, or by a remote delete that failed), once they are older than `grace` (so a
/// blob stored a moment before its row is written is never taken).
struct BlobCollector: Service {
    let store: MediaStore
    let blobs: BlobStore
    let clock: any WallClock
    let grace: TimeInterval
    let interval: Duration
    let logger: Logger

    func run() async {
        // Nothing here is urgent at start (the grace protects fresh blobs either way): the
        // first pass is one interval later.
        await PeriodicService(interval: interval, runsAtStart: false) { await collect() }.run()
    }

    /// One pass; returns the hashes deleted.
    @discardableResult
    func collect() async -> [String] {
        do {
            let cutoff = clock.now().addingTimeInterval(-grace)
            let stored = try await blobs.backend.list()
            let used = try await store.usedBlobs()
            let orphans = stored.filter { !used.contains($0.sha256) && $0.storedAt < cutoff }.map(\.sha256)
            for hash in orphans {
                // Checked again one by one: a row may have started using it since the listing.
                guard try await !store.database.read({ db in try MediaStore.isUsed(hash, in: db) }) else { continue }
                try await blobs.remove(sha256: hash)
            }
            if !orphans.isEmpty { logger.info("orphaned blobs collected", metadata: ["count": "\(orphans.count)"]) }
            return orphans
        } catch {
            logger.failure("orphaned blobs could not be collected", error: error)
            return []
        }
    }
}
