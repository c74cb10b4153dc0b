import Configuration
import Contracts
import Hummingbird
import Prometheus
import ServiceKit

/// Builds the streak application; `App.swift` runs it, tests drive it in process.
func buildApplication(
    reader: ConfigReader, clock: any WallClock = SystemClock(), entropy: any Entropy = SystemEntropy(),
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
) async throws -> some ApplicationProtocol {
    let runtime = try ServiceRuntime(name: .streak, reader: reader, clock: clock, entropy: entropy, metrics: metrics)
    return try runtime.makeApplication(try await buildRouter(runtime: runtime, reader: reader))
}

/// What streak asks other services; tests pass fakes.
struct StreakDependencies: Sendable {
    var media: Lookup<MediaSummary>
    var users: Lookup<UserSummary>

    static func live(_ runtime: ServiceRuntime) -> StreakDependencies {
        StreakDependencies(
            media: .internal(runtime.client, from: .media, path: "/internal/media"),
            users: .internal(runtime.client, from: .auth, path: "/internal/users"))
    }
}

/// The streak router and its long-running jobs.
func buildRouter(
    runtime: ServiceRuntime, reader: ConfigReader, dependencies: StreakDependencies? = nil
) async throws -> ServiceParts {
    let dependencies = dependencies ?? .live(runtime)
    let (clock, entropy) = (runtime.clock, runtime.entropy)
    let database = try runtime.openDatabase(registerMigrations: StreakStore.registerMigrations)
    let outbox = runtime.makeOutbox()
    let store = StreakStore(database: database, outbox: outbox)

    var inbox = EventInbox(clock: clock)
    inbox.on(UserBlocked.self) { envelope, db in try StreakStore.block(envelope.payload, at: clock.now(), in: db) }
    inbox.on(UserUnblocked.self) { envelope, db in try StreakStore.unblock(envelope.payload, in: db) }
    inbox.onUserDeleted(erase: StreakStore.erase)
    inbox.on(RecoveryTokensPurchased.self) { envelope, db in
        try StreakStore.credit(envelope.payload, at: clock.now(), in: db)
    }

    let router = runtime.makeRouter(readiness: ["database": ServiceRuntime.databaseCheck(database)])
    EventsController(inbox: inbox, database: database).addRoutes(to: router)
    let authenticated = router.group().add(middleware: AuthenticationMiddleware(verifier: runtime.makeTokenVerifier()))
    let idempotency = IdempotencyMiddleware<ServiceRequestContext>(database: database, clock: clock)
    FriendsController(store: store, users: dependencies.users, clock: clock, entropy: entropy)
        .addRoutes(to: authenticated, idempotency: idempotency)
    StreaksController(store: store, media: dependencies.media, clock: clock, entropy: entropy)
        .addRoutes(to: authenticated, idempotency: idempotency)
    return ServiceParts(router: router, services: [runtime.makeOutboxDispatcher(database: database, outbox: outbox)])
}
