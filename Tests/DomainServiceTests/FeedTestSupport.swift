import GRDB
import TestSupport

@testable import FeedService

extension FeedStore {
    /// A second handle on the feed store of `harness`, for applying what the inbox applies.
    static func opened(beside harness: ServiceHarness) throws -> FeedStore {
        FeedStore(
            database: try DatabasePool(
                path: harness.runtime.settings.ownDirectory().appendingPathComponent("feed.sqlite").path),
            outbox: harness.runtime.makeOutbox(), jobs: harness.runtime.makeJobQueue())
    }
}
