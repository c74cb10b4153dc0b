import Logging
import ServiceHTTP
import ServiceLifecycle

/// Re-reads the keys directory every `interval`, so a key added by `pinhole keys rotate`
/// starts signing without a restart.
struct KeyRingWatcher: Service {
    let ring: SigningKeyRing
    let interval: Duration
    let logger: Logger

    func run() async {
        // The ring was loaded at start: the first look is one interval later.
        await PeriodicService(interval: interval, runsAtStart: false) { await reload() }.run()
    }

    func reload() async {
        do {
            if try await ring.reloadIfChanged() {
                let kid = await ring.signingKeyID
                logger.notice("signing keys reloaded", metadata: ["kid": "\(kid)"])
            }
        } catch {
            // A half-written or damaged file: keep signing with the keys already loaded.
            logger.failure("signing keys could not be reloaded", error: error)
        }
    }
}
