import Foundation
import Logging
import ServiceHTTP
import ServiceLifecycle

/// Keeps the blob replica whole: at start, copies every local blob the replica lacks (one a
/// crash kept from being copied); then, every `interval`, the copies that failed.
struct BlobReplicaWorker: Service {
    let replica: BlobReplica
    let local: LocalBlobBackend
    let interval: Duration
    let logger: Logger

    func run() async {
        await pass(everything: true)
        await PeriodicService(interval: interval, runsAtStart: false) { await pass(everything: false) }.run()
    }

    func pass(everything: Bool) async {
        do {
            let copied = try await replica.catchUp(local: local, everything: everything)
            if copied > 0 { logger.info("blobs copied to the replica", metadata: ["count": "\(copied)"]) }
        } catch {
            logger.failure("the blob replica could not be listed; it is tried again", error: error)
        }
    }
}
