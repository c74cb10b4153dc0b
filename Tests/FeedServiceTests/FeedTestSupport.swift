import GRDB
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import FeedService

extension FeedStore {
    /// A second handle on the feed store of `harness`, for applying what the inbox applies.
    static func opened(beside harness: ServiceHarness) throws -> FeedStore {
        let database = try harness.databasePool()
        return FeedStore(
            database: database, outbox: harness.runtime.makeOutbox(), jobs: harness.runtime.makeJobQueue(),
            views: harness.runtime.makeViews(database: database).views)
    }
}

/// Feed's router driven in process with fake lookups: `library` is the media it knows,
/// `names` the users (id → display name); `body` gets the job runner (run jobs with `drain`)
/// and a second handle on the store.
func withFeedRouter(
    library: [MediaSummary], names: [String: String], config: [String: String] = [:],
    sessions: Lookup<SessionState>? = nil,
    _ body: @escaping @Sendable (ServiceHarness, any TestClientProtocol, JobRunner, FeedStore) async throws -> Void
) async throws {
    let harness = try ServiceHarness(.feed, config: config, sessions: sessions)
    let media = Lookup<MediaSummary>.fixed(Dictionary(uniqueKeysWithValues: library.map { ($0.id, $0) }))
    let users = Lookup<UserSummary>.fixed(
        Dictionary(uniqueKeysWithValues: names.map { ($0.key, UserSummary(id: $0.key, displayName: $0.value)) }))
    let parts = try await FeedService.buildRouter(
        runtime: harness.runtime, reader: harness.reader, dependencies: FeedDependencies(media: media, users: users))
    let runner = try #require(parts.services.compactMap { $0 as? JobRunner }.first)
    let store = try FeedStore.opened(beside: harness)
    try await harness.test(parts) { client in try await body(harness, client, runner, store) }
}
