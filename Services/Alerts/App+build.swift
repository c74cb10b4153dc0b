import AsyncHTTPClient
import Configuration
import Contracts
import GRDB
import Hummingbird
import Prometheus
import ServiceHTTP
import ServiceLifecycle
import ServiceStore

/// Builds the alerts application; `App.swift` runs it, tests drive it in process.
func buildApplication(
    reader: ConfigReader, clock: any WallClock = SystemClock(), entropy: any Entropy = SystemEntropy(),
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
) async throws -> some ApplicationProtocol {
    let runtime = try ServiceRuntime(name: .alerts, reader: reader, clock: clock, entropy: entropy, metrics: metrics)
    let settings = try AlertsSettings(reader: reader)
    // Every live stream the gateway carries is one HTTP/2 stream on its connection here.
    let listener = try runtime.internalListener(maxConcurrentStreams: settings.streamsOpenLimit + 100)
    return try runtime.makeApplication(try await buildRouter(runtime: runtime, reader: reader), server: listener)
}

/// What alerts asks other services; tests pass fakes.
struct AlertsDependencies: Sendable {
    /// Whether a message's recipient exists, and the sender's display name.
    var users: Lookup<UserSummary>
    /// Whose a message's photo or video is and whether it is ready.
    var media: Lookup<MediaSummary>
    /// Whether a recipient follows the sender (`{follower}/{followee}`): their first message
    /// lands in the inbox rather than requests.
    var follows: Lookup<FollowEdge>

    static func live(_ runtime: ServiceRuntime) -> AlertsDependencies {
        AlertsDependencies(
            users: .internal(runtime.client, from: .auth, path: "/internal/users"),
            media: .internal(runtime.client, from: .media, path: "/internal/media"),
            follows: .internal(runtime.client, from: .feed, path: "/internal/follows"))
    }
}

/// The alerts router and its long-running jobs.
func buildRouter(
    runtime: ServiceRuntime, reader: ConfigReader, dependencies: AlertsDependencies? = nil
) async throws -> ServiceParts<ServiceRequestContext> {
    let dependencies = dependencies ?? .live(runtime)
    let settings = try AlertsSettings(reader: reader)
    let database = try runtime.openDatabase(registerMigrations: AlertsStore.registerMigrations)
    let outbox = runtime.makeOutbox()
    let views = runtime.makeViews(database: database)
    let store = AlertsStore(database: database, outbox: outbox, views: views.views)
    let jobs = runtime.makeJobQueue()
    let streams = LiveStreams(perUserLimit: settings.streamsPerUser, processLimit: settings.streamsOpenLimit)
    database.add(
        transactionObserver: NotificationTap(streams: streams, views: views.views), extent: .databaseLifetime)

    let inbox = AlertsInbox.make(
        jobs: jobs, streams: streams, duressReach: settings.duressReach, clock: runtime.clock)

    let (router, routes) = runtime.makeRoutes(database: database)
    EventsController(inbox: inbox, database: database).addRoutes(to: routes)
    NotificationsController(store: store, clock: runtime.clock).addRoutes(to: routes)
    DevicesController(store: store, clock: runtime.clock, entropy: runtime.entropy).addRoutes(to: routes)
    PreferencesController(store: store, clock: runtime.clock).addRoutes(to: routes)
    MessagesController(
        store: store, users: dependencies.users, media: dependencies.media, follows: dependencies.follows,
        newConversations: settings.newConversations, jobs: jobs, clock: runtime.clock, entropy: runtime.entropy,
        requireVerifiedEmail: runtime.settings.requireVerifiedEmail
    ).addRoutes(to: routes)
    ConversationsController(store: store, clock: runtime.clock).addRoutes(to: routes)
    InternalMessagesController(store: store).addRoutes(to: routes)
    ModerationSubjectsController(owner: .alerts) { _, id, viewer in
        try await store.moderationSubject(message: id, viewer: viewer)
    }.addRoutes(to: routes)
    DuressController(
        store: store, jobs: jobs, reach: settings.duressReach, clock: runtime.clock, entropy: runtime.entropy
    ).addRoutes(to: routes)
    StreamController(
        store: store, streams: streams, clock: runtime.clock, heartbeat: settings.streamHeartbeat,
        reach: settings.duressReach, jobs: jobs
    ).addRoutes(to: routes)

    let push = try PushClients(settings: settings, clock: runtime.clock)
    push.logProviders(runtime.logger)
    var runner = runtime.makeJobRunner(database: database, queue: jobs, concurrency: settings.pushConcurrency)
    PushDelivery(
        store: store, senders: push.senders, expo: push.expo, receiptDelay: settings.expo?.receiptDelay ?? 900,
        jobs: jobs, clock: runtime.clock, logger: runtime.logger
    ).register(on: &runner)
    return ServiceParts(
        router: router,
        services: [runtime.makeOutboxDispatcher(database: database, outbox: outbox), runner, push, streams]
            + views.services)
}
