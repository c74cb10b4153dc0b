import Configuration
import Contracts
import Hummingbird
import NIOHTTP1
import Prometheus
import ServiceHTTP
import ServiceStore

/// Builds the moderation application; `App.swift` runs it, tests drive it in process.
func buildApplication(
    reader: ConfigReader, clock: any WallClock = SystemClock(), entropy: any Entropy = SystemEntropy(),
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
) async throws -> some ApplicationProtocol {
    let runtime = try ServiceRuntime(
        name: .moderation, reader: reader, clock: clock, entropy: entropy, metrics: metrics)
    return try runtime.makeApplication(try await buildRouter(runtime: runtime, reader: reader))
}

/// What moderation asks other services; tests pass fakes.
struct ModerationDependencies: Sendable {
    /// Reported objects, from the service that owns each kind.
    var subjects: ModerationSubjectLookup
    var users: Lookup<UserSummary>
    /// The console's sign-in and sign-out, at auth.
    var accounts: ConsoleAccounts
    /// A media object's thumbnail (or a video's poster) as JPEG bytes, nil when it has none.
    var previews: @Sendable (_ mediaID: String) async throws -> ByteBuffer? = { _ in nil }

    static func live(_ runtime: ServiceRuntime) -> ModerationDependencies {
        let client = runtime.client
        return ModerationDependencies(
            subjects: .live(client), users: .internal(client, from: .auth, path: "/internal/users"),
            accounts: .live(client),
            previews: { id in
                let response = try await client.send(.GET, to: .media, path: "/internal/media/\(id)/preview")
                guard response.status != .notFound else { return nil }
                guard response.status == .ok else {
                    throw ServiceError(.upstreamUnavailable, "The media service answered \(response.status.code).")
                }
                return response.body
            })
    }
}

/// The moderation router and its long-running jobs.
func buildRouter(
    runtime: ServiceRuntime, reader: ConfigReader, dependencies: ModerationDependencies? = nil
) async throws -> ServiceParts<ServiceRequestContext> {
    let settings = try ModerationSettings(reader: reader)
    let dependencies = dependencies ?? .live(runtime)
    let (clock, entropy) = (runtime.clock, runtime.entropy)
    let database = try runtime.openDatabase(registerMigrations: ModerationStore.registerMigrations)
    let outbox = runtime.makeOutbox()
    let jobs = runtime.makeJobQueue()
    let views = runtime.makeViews(database: database)
    let store = ModerationStore(
        database: database, outbox: outbox, jobs: jobs, autoHideReports: settings.autoHideReports,
        reportsPerHour: settings.reportsPerHour, views: views.views)

    var inbox = EventInbox(clock: clock)
    inbox.onUserDeleted(erase: ModerationStore.erase)
    inbox.mirrorProfiles()
    inbox.mirrorMedia()
    inbox.on(MediaHeld.self) { envelope, db in try ModerationStore.mediaHeld(envelope.payload, at: clock.now(), in: db)
    }

    let verifier = runtime.makeTokenVerifier()
    let (router, routes) = runtime.makeRoutes(database: database, verifier: verifier)
    EventsController(inbox: inbox, database: database).addRoutes(to: routes)
    ReportsController(store: store, subjects: dependencies.subjects, clock: clock, entropy: entropy)
        .addRoutes(to: routes)
    let actions = ModerationActionsController(
        store: store, subjects: dependencies.subjects, clock: clock, entropy: entropy)
    actions.addRoutes(to: routes)
    ModerationQueueController(store: store, subjects: dependencies.subjects, actions: actions).addRoutes(to: routes)
    AppealsController(store: store, clock: clock).addRoutes(to: routes)
    AuditLogController(store: store).addRoutes(to: routes)
    // The web console, served at /console through the gateway.
    let gate = ConsoleGate(store: store, verifier: verifier, clock: clock, entropy: entropy)
    let pages = try ConsolePages()
    ConsoleSessionsController(gate: gate, accounts: dependencies.accounts, pages: pages)
        .addRoutes(to: routes)
    ConsoleQueueController(
        gate: gate, pages: pages, store: store, subjects: dependencies.subjects,
        actions: actions, previews: dependencies.previews
    ).addRoutes(to: routes)
    ConsoleReviewController(gate: gate, pages: pages, store: store).addRoutes(to: routes)
    RelationsController<BlockRecord>(
        store: store, users: dependencies.users, clock: clock, path: "/v1/blocks", noun: "block", limit: 10_000
    ).addRoutes(to: routes)
    RelationsController<UserMuteRecord>(
        store: store, users: dependencies.users, clock: clock, path: "/v1/mutes/users", noun: "mute", limit: 10_000
    ).addRoutes(to: routes)
    KeywordMutesController(store: store, clock: clock, entropy: entropy).addRoutes(to: routes)
    // Each suspension has one job that ends it.
    var runner = runtime.makeJobRunner(database: database, queue: jobs)
    runner.complete(ModerationStore.suspensionEnd) { (job: ModerationStore.SuspensionEnd, _) in
        .done(recording: { db in try ModerationStore.endSuspension(job, at: clock.now(), outbox: outbox, in: db) })
    }
    return ServiceParts(
        router: router,
        services: [runtime.makeOutboxDispatcher(database: database, outbox: outbox), runner] + views.services)
}
