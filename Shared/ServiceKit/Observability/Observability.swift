import Configuration
import Contracts
import Foundation
import Hummingbird
import Logging
import Metrics
import Prometheus

/// Process-wide logging and metrics, bootstrapped once by each executable's `App.swift`
/// (never by shared code or tests).
public enum Observability {
    /// Installs the structured log handler and the Prometheus metrics factory; returns the
    /// registry `/metrics` serves.
    public static func bootstrap(_ name: ServiceName, reader: ConfigReader) throws -> PrometheusCollectorRegistry {
        let settings = try ServiceSettings(name: name, reader: reader)
        LoggingSystem.bootstrap { label in
            StructuredLogHandler(label: label, level: settings.logLevel, format: settings.logFormat)
        }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return registry
    }
}

/// The entry point every executable's `App.swift` calls: read configuration, bootstrap
/// observability, build, run; a configuration problem is printed plainly with exit code 1.
public enum ServiceMain {
    public static func run<App: ApplicationProtocol>(
        _ name: ServiceName, build: @Sendable (ConfigReader, PrometheusCollectorRegistry) async throws -> App
    ) async {
        do {
            let reader = try await ConfigReader.pinhole()
            let registry = try Observability.bootstrap(name, reader: reader)
            let app = try await build(reader, registry)
            try await app.runService()
        } catch let error as ConfigurationError {
            print("\(name.rawValue): configuration error: \(error.description)")
            exit(1)
        } catch {
            print("\(name.rawValue): failed: \(error)")
            exit(1)
        }
    }
}
