import Configuration
import Contracts
import Hummingbird
import Prometheus
import ServiceKit

/// Builds the alerts application; `App.swift` runs it, tests drive it in process.
func buildApplication(
    reader: ConfigReader, clock: any WallClock = SystemClock(), entropy: any Entropy = SystemEntropy(),
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
) async throws -> some ApplicationProtocol {
    let runtime = try ServiceRuntime(name: .alerts, reader: reader, clock: clock, entropy: entropy, metrics: metrics)
    return try runtime.makeApplication(try await buildRouter(runtime: runtime, reader: reader))
}

/// The alerts router and its long-running jobs.
func buildRouter(runtime: ServiceRuntime, reader: ConfigReader) async throws -> ServiceParts<ServiceRequestContext> {
    let database = try runtime.openDatabase(registerMigrations: AlertsStore.registerMigrations)
    let store = AlertsStore(database: database)

    var inbox = EventInbox(clock: runtime.clock)
    inbox.on(FriendRequestSent.self, apply: AlertsStore.friendRequestSent)
    inbox.on(FriendRequestAccepted.self, apply: AlertsStore.friendRequestAccepted)
    inbox.on(DuressRaised.self, apply: AlertsStore.duressRaised)
    inbox.on(SessionEnded.self, apply: AlertsStore.sessionEnded)
    inbox.onUserDeleted(erase: AlertsStore.erase)

    let (router, routes) = runtime.makeRoutes(database: database)
    EventsController(inbox: inbox, database: database).addRoutes(to: routes)
    NotificationsController(store: store, clock: runtime.clock).addRoutes(to: routes)
    DevicesController(store: store, clock: runtime.clock, entropy: runtime.entropy).addRoutes(to: routes)
    PreferencesController(store: store, clock: runtime.clock).addRoutes(to: routes)
    return ServiceParts(router: router)
}
