import Configuration
import Contracts
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
