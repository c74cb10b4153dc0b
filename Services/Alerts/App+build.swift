import AsyncHTTPClient
import Configuration
import Contracts
import GRDB
import Hummingbird
import Prometheus
import ServiceKit
import ServiceLifecycle

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

/// The alerts router and its long-running jobs.
func buildRouter(runtime: ServiceRuntime, reader: ConfigReader) async throws -> ServiceParts<ServiceRequestContext> {
    let settings = try AlertsSettings(reader: reader)
    let database = try runtime.openDatabase(registerMigrations: AlertsStore.registerMigrations)
    let store = AlertsStore(database: database)
    let jobs = runtime.makeJobQueue()
    let streams = LiveStreams(perUserLimit: settings.streamsPerUser, processLimit: settings.streamsOpenLimit)
    database.add(transactionObserver: NotificationTap(streams: streams), extent: .databaseLifetime)

    let inbox = AlertsInbox.make(
        jobs: jobs, streams: streams, duressReach: settings.duressReach, clock: runtime.clock)

    let (router, routes) = runtime.makeRoutes(database: database)
    EventsController(inbox: inbox, database: database).addRoutes(to: routes)
    NotificationsController(store: store, clock: runtime.clock).addRoutes(to: routes)
    DevicesController(store: store, clock: runtime.clock, entropy: runtime.entropy).addRoutes(to: routes)
    PreferencesController(store: store, clock: runtime.clock).addRoutes(to: routes)
    DuressController(
        store: store, jobs: jobs, reach: settings.duressReach, clock: runtime.clock, entropy: runtime.entropy
    ).addRoutes(to: routes)
    StreamController(
        store: store, streams: streams, clock: runtime.clock, heartbeat: settings.streamHeartbeat,
        positionMaxAge: settings.duressReach.positionMaxAge
    ).addRoutes(to: routes)

    let push = try PushClients(settings: settings, clock: runtime.clock)
    push.logProviders(runtime.logger)
    var runner = runtime.makeJobRunner(database: database, queue: jobs, concurrency: settings.pushConcurrency)
    PushDelivery(
        store: store, senders: push.senders, expo: push.expo, receiptDelay: settings.expo?.receiptDelay ?? 900,
        jobs: jobs, clock: runtime.clock, logger: runtime.logger
    ).register(on: &runner)
    return ServiceParts(router: router, services: [runner, push, streams])
}
