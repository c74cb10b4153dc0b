import Logging
import ServiceKit
import ServiceLifecycle

/// Re-reads the keys directory every `interval`, so a key added by `pinhole keys rotate`
/// starts signing without a restart.
struct KeyRingWatcher: Service {
    let ring: SigningKeyRing
    let interval: Duration
    let logger: Logger

    func run() async throws {
        try await cancelWhenGracefulShutdown {
            while true {
                try await Task.sleep(for: interval)
                do {
                    if try await ring.reloadIfChanged() {
                        let kid = await ring.signingKeyID
                        logger.notice("signing keys reloaded", metadata: ["kid": "\(kid)"])
                    }
                } catch {
                    // A half-written or damaged file: keep signing with the keys already loaded.
                    logger.error("signing keys could not be reloaded", metadata: ["error": "\(error)"])
                }
            }
        }
    }
}
