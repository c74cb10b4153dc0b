import Configuration
import Hummingbird
import Prometheus
import ServiceKit

/// Builds the moderation application; `App.swift` runs it, tests drive it in process.
func buildApplication(
    reader: ConfigReader, clock: any WallClock = SystemClock(), entropy: any Entropy = SystemEntropy(),
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
) async throws -> some ApplicationProtocol {
    let runtime = try ServiceRuntime(
        name: .moderation, reader: reader, clock: clock, entropy: entropy, metrics: metrics)
    return try runtime.makeApplication(try await buildRouter(runtime: runtime, reader: reader))
}

/// The moderation router and its long-running jobs.
func buildRouter(runtime: ServiceRuntime, reader: ConfigReader) async throws -> ServiceParts {
    let database = try runtime.openDatabase(registerMigrations: ModerationStore.registerMigrations)
    let router = runtime.makeRouter(readiness: ["database": ServiceRuntime.databaseCheck(database)])
    return ServiceParts(router: router)
}
