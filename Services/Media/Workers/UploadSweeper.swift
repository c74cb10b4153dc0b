import Logging
import ServiceHTTP
import ServiceLifecycle

/// Reclaims the bytes of uploads that expired, and of upload files no live upload owns (left
/// by a crash between creating the file and recording the upload), at start and then every
/// `interval`.
struct UploadSweeper: Service {
    let store: MediaStore
    let files: UploadFiles
    let clock: any WallClock
    let interval: Duration
    let logger: Logger

    func run() async {
        await PeriodicService(interval: interval) { await sweep() }.run()
    }

    func sweep() async {
        do {
            let expired = try await store.expireUploads(now: clock.now())
            for id in expired { files.remove(id) }
            let live = try await store.liveUploadIDs()
            let orphans = files.ids().filter { !live.contains($0) }
            for id in orphans { files.remove(id) }
            if !expired.isEmpty || !orphans.isEmpty {
                logger.info("uploads swept", metadata: ["expired": "\(expired.count)", "orphans": "\(orphans.count)"])
            }
        } catch {
            logger.failure("uploads could not be swept", error: error)
        }
    }
}
