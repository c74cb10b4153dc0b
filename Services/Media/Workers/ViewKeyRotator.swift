import Foundation
import Logging
import ServiceHTTP
import ServiceLifecycle

/// Keeps media's view-URL keys current: at start and every ten minutes it makes a new key when
/// the newest is due (``ViewKeyFiles``), retires old ones, and hands the set to `ring`, which
/// checks the URLs media serves and answers `GET /internal/media/url-keys`.
struct ViewKeyRotator: Service {
    let files: ViewKeyFiles
    let ring: MediaURLKeyRing
    let logger: Logger

    func run() async {
        let (files, ring, logger) = (files, ring, logger)
        await PeriodicService(interval: .seconds(600)) {
            do {
                try ring.use(try files.current())
            } catch {
                logger.failure("media view keys not rotated", error: error)
            }
        }.run()
    }
}
