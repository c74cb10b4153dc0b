import Configuration
import Contracts
import Logging
import Metrics
import Prometheus
import ServiceLifecycle

/// Process-wide logging, metrics and tracing, bootstrapped once by ``ServiceMain`` (never by
/// shared code or tests).
public enum Observability {
    /// What the bootstrap made: the registry `/metrics` serves, and the background services
    /// that export telemetry (none unless `otel.endpoint` is set), to run beside the application.
    public struct Bootstrapped {
        public let registry: PrometheusCollectorRegistry
        public let services: [any Service]
    }

    /// Installs the structured log handler, the Prometheus metrics factory and, when
    /// configured, OpenTelemetry's tracer and OTLP metrics (``Telemetry``).
    public static func bootstrap(_ name: ServiceName, reader: ConfigReader) throws -> Bootstrapped {
        let settings = try ServiceSettings(name: name, reader: reader)
        let telemetry = try TelemetrySettings(reader: reader)
        LoggingSystem.bootstrap { label in
            StructuredLogHandler(label: label, level: settings.logLevel, format: settings.logFormat)
        }
        let registry = PrometheusCollectorRegistry()
        let services = try Telemetry.bootstrap(
            name, settings: telemetry, registry: registry, logger: Logger(label: "pinhole.\(name.rawValue).otel"))
        return Bootstrapped(registry: registry, services: services)
    }
}
