import Configuration
import GRDB
import Hummingbird
import Prometheus
import ServiceHTTP

extension ServiceMain {
    /// ``ServiceMain/run(_:migrationNames:build:)`` for a service with a database:
    /// `--list-migrations` prints the kit's migrations and then `migrations`' names.
    public static func run<App: ApplicationProtocol>(
        _ name: ServiceName, migrations: @escaping (inout DatabaseMigrator) -> Void,
        build: @Sendable (ConfigReader, PrometheusCollectorRegistry) async throws -> App
    ) async {
        await run(name, migrationNames: { ServiceDatabase.migrator(migrations).migrations }, build: build)
    }
}
