import Foundation
import GRDB
import Logging
import ServiceKit
import ServiceLifecycle

/// Processes media left in `processing`: videos just after their upload, and anything a
/// crash interrupted (at start). Wakes when told, and at least every `interval`; a media
/// whose storage failed is tried again on the next round.
struct MediaProcessingWorker: Service {
    let processor: MediaProcessor
    let interval: Duration
    let logger: Logger

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    while true {
                        try await Task.sleep(for: interval)
                        processor.queue.wake()
                    }
                }
                await round()
                for await _ in processor.queue.wakeups {
                    await round()
                }
                group.cancelAll()
            }
        }
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
                    logger.error("media could not be processed", metadata: ["media_id": "\(id)", "error": "\(error)"])
                }
            }
        } catch {
            logger.error("media processing could not run", metadata: ["error": "\(error)"])
        }
    }
}
