import Foundation
import Logging
import ServiceHTTP
import ServiceLifecycle

/// Keeps the following feed's and For You's tables from growing without end, at start and
/// then every `interval`: each timeline keeps its newest `timelineRows` rows (older pages were
/// read long ago; a user's own posts stay on their profile), and For You's signals older than
/// `signalDays` go (they count for a day; their affinities are kept), except "not interested"
/// (`hide`), which lasts.
struct FeedHousekeeper: Service {
    let store: FeedStore
    let clock: any WallClock
    let settings: FeedSettings.Housekeeping
    let logger: Logger

    func run() async {
        await PeriodicService(interval: .seconds(Int64(settings.interval))) { await sweep() }.run()
    }

    func sweep() async {
        do {
            let trimmed = try await store.trimTimelines(keeping: settings.timelineRows)
            let expired = try await store.expireSignals(
                before: clock.now().addingTimeInterval(-Double(settings.signalDays) * 86400))
            if trimmed > 0 || expired > 0 {
                logger.info("feed tidied", metadata: ["timeline_rows": "\(trimmed)", "signals": "\(expired)"])
            }
        } catch {
            logger.failure("feed could not be tidied", error: error)
        }
    }
}
