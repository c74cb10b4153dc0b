import Foundation
import GRDB
import Logging
import ServiceHTTP
import ServiceLifecycle
import ServiceStore

/// Processes media left in `processing`: videos just after their upload (the processor rings
/// its doorbell), and anything a crash interrupted (at start), at least every `interval`; a
/// media whose storage failed is tried again on the next round.
struct MediaProcessingWorker: Service {
    let processor: MediaProcessor
    let interval: Duration
    let logger: Logger

    func run() async {
        await PeriodicService(interval: interval, doorbell: processor.doorbell) { await round() }.run()
    }

    func round() async {
        do {
            for id in try await processor.store.mediaInProcessing() {
                do {
                    if let media = try await processor.process(id: id) {
                        logger.info(
                            "media processed", metadata: ["media_id": "\(id)", "status": "\(media.status.rawValue)"])
                    }
                } catch {
                    logger.failure("media could not be processed", error: error, metadata: ["media_id": "\(id)"])
                }
            }
        } catch {
            logger.failure("media processing could not run", error: error)
        }
    }
}
