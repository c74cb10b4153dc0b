import Logging
import ServiceHTTP
import ServiceLifecycle

/// Every hour, removes what mail leaves behind once it can no longer count: codes and links
/// past their lifetime, and the per-address counts older than the limit's hour.
struct MailHousekeeping: Service {
    let email: EmailStore
    let clock: any WallClock
    let interval: Duration
    let logger: Logger

    func run() async {
        await PeriodicService(interval: interval) { await sweep() }.run()
    }

    func sweep() async {
        do {
            let (challenges, requests) = try await email.removeExpired(at: clock.now())
            if challenges + requests > 0 {
                logger.debug(
                    "mail leftovers removed", metadata: ["challenges": "\(challenges)", "requests": "\(requests)"])
            }
        } catch {
            logger.failure("expired mail codes could not be removed", error: error)
        }
    }
}
