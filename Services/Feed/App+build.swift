import Configuration
import Contracts
import Hummingbird
import Prometheus
import ServiceKit

/// Builds the feed application; `App.swift` runs it, tests drive it in process.
func buildApplication(
    reader: ConfigReader, clock: any WallClock = SystemClock(), entropy: any Entropy = SystemEntropy(),
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
) async throws -> some ApplicationProtocol {
    let runtime = try ServiceRuntime(name: .feed, reader: reader, clock: clock, entropy: entropy, metrics: metrics)
    return try runtime.makeApplication(try await buildRouter(runtime: runtime, reader: reader))
}

/// What feed asks other services; tests pass fakes.
struct FeedDependencies: Sendable {
    var media: Lookup<MediaSummary>

    static func live(_ runtime: ServiceRuntime) -> FeedDependencies {
        FeedDependencies(media: .internal(runtime.client, from: .media, path: "/internal/media"))
    }
}

/// The feed router and its long-running jobs.
func buildRouter(
    runtime: ServiceRuntime, reader: ConfigReader, dependencies: FeedDependencies? = nil
) async throws -> ServiceParts<ServiceRequestContext> {
    let settings = try FeedSettings(reader: reader)
    let dependencies = dependencies ?? .live(runtime)
    let clock = runtime.clock
    let database = try runtime.openDatabase(registerMigrations: FeedStore.registerMigrations)
    let outbox = runtime.makeOutbox()
    let store = FeedStore(database: database, outbox: outbox)

    var inbox = EventInbox(clock: clock)
    inbox.on(ContentHidden.self) { envelope, db in try FeedStore.hide(envelope.payload, at: clock.now(), in: db) }
    inbox.mirrorBlocks()
    inbox.onUserDeleted(erase: FeedStore.erase)
    inbox.on(MediaReady.self) { envelope, db in try FeedStore.mediaReady(envelope.payload, in: db) }
    inbox.on(MediaRejected.self) { envelope, db in try FeedStore.mediaRejected(envelope.payload, in: db) }

    let (router, routes) = runtime.makeRoutes(database: database)
    EventsController(inbox: inbox, database: database).addRoutes(to: routes)
    InternalPostsController(store: store).addRoutes(to: routes)
    PostsController(
        store: store, media: dependencies.media, clock: clock, entropy: runtime.entropy,
        requireVerifiedPhone: settings.requireVerifiedPhone
    ).addRoutes(to: routes)
    NearbyController(store: store, maxRadius: settings.maxRadius).addRoutes(to: routes)
    return ServiceParts(router: router, services: [runtime.makeOutboxDispatcher(database: database, outbox: outbox)])
}
