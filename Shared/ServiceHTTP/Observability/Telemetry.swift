import Contracts
import Foundation
import HTTPTypes
import Instrumentation
import Logging
import Metrics
import OTel
import Prometheus
import ServiceContextModule
import ServiceLifecycle
import Synchronization
import Tracing

/// OpenTelemetry spans and metrics, exported over OTLP/HTTP by swift-otel when `otel.endpoint`
/// is set (``TelemetrySettings``). Off, nothing is made and `traceparent` keeps Pinhole's own
/// ids (``RequestTracingMiddleware``); on, every request is a server span at the gateway and
/// at each service, every internal call a client span and every outbox delivery a producer
/// span, and `traceparent` carries the span ids, so one request is one trace across processes.
public enum Telemetry {
    private static let enabled = Atomic<Bool>(false)

    /// Whether spans are made and exported (set once, at bootstrap).
    public static var isEnabled: Bool { enabled.load(ordering: .relaxed) }

    /// Installs swift-otel's tracer and adds its OTLP metrics next to Prometheus; returns the
    /// background services that export (run them beside the application).
    static func bootstrap(
        _ name: ServiceName, settings: TelemetrySettings, registry: PrometheusCollectorRegistry, logger: Logger
    ) throws -> [any Service] {
        let prometheus = PrometheusMetricsFactory(registry: registry)
        guard let endpoint = settings.endpoint else {
            MetricsSystem.bootstrap(prometheus)
            return []
        }
        var configuration = OTel.Configuration.default
        configuration.serviceName = name.rawValue
        configuration.resourceAttributes = ["service.namespace": "pinhole", "service.version": PinholeRelease.version]
        configuration.diagnosticLogger = .custom(logger)
        configuration.propagators = [.traceContext]
        configuration.logs.enabled = false
        configuration.traces.sampler = .parentBasedAlwaysOn
        configuration.traces.batchSpanProcessor.scheduleDelay = settings.exportInterval
        configuration.metrics.exportInterval = settings.exportInterval
        let wire: OTel.Configuration.OTLPExporterConfiguration.`Protocol` =
            settings.wireProtocol == .json ? .httpJSON : .httpProtobuf
        // A signal's own endpoint is used as given (the OTLP exporter rules): name its path.
        let base =
            endpoint.absoluteString.hasSuffix("/")
            ? String(endpoint.absoluteString.dropLast()) : endpoint.absoluteString
        configuration.traces.otlpExporter.endpoint = base + "/v1/traces"
        configuration.traces.otlpExporter.protocol = wire
        configuration.metrics.otlpExporter.endpoint = base + "/v1/metrics"
        configuration.metrics.otlpExporter.protocol = wire
        let tracing = try OTel.makeTracingBackend(configuration: configuration)
        let metrics = try OTel.makeMetricsBackend(configuration: configuration)
        InstrumentationSystem.bootstrap(tracing.factory)
        MetricsSystem.bootstrap(MultiplexMetricsHandler(factories: [prometheus, metrics.factory]))
        enabled.store(true, ordering: .relaxed)
        logger.info("exporting traces and metrics over OTLP", metadata: ["endpoint": "\(endpoint)"])
        return [tracing.service, metrics.service]
    }

    /// Runs `body` in a new span, child of `context`'s; `body` gets the span and its
    /// `traceparent`. Without telemetry (or when `traced` is false), `body` runs with neither.
    public static func withSpan<Value>(
        _ name: String, kind: SpanKind, context: ServiceContext = ServiceContext.current ?? .topLevel,
        traced: Bool = true, _ body: (_ span: (any Span)?, _ traceparent: TraceParent?) async throws -> Value
    ) async rethrows -> Value {
        guard isEnabled, traced else { return try await body(nil, nil) }
        return try await InstrumentationSystem.tracer.withSpan(name, context: context, ofKind: kind) { span in
            var carrier: [String: String] = [:]
            InstrumentationSystem.instrument.inject(span.context, into: &carrier, using: DictionaryInjector())
            return try await body(span, carrier["traceparent"].flatMap(TraceParent.init(header:)))
        }
    }

    /// `context` with the trace an incoming request names (W3C `traceparent`/`tracestate`).
    public static func extracting(_ fields: HTTPFields, into context: ServiceContext) -> ServiceContext {
        var context = context
        InstrumentationSystem.instrument.extract(fields, into: &context, using: HTTPFieldsExtractor())
        return context
    }

    /// A span name for a request: its method and path with ids (segments of digits only, or
    /// of 8 characters or more holding a digit: uuids, tokens, dates) written `{id}`, so names
    /// stay few.
    public static func spanName(method: String, path: String) -> String {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).map { segment in
            let id =
                segment.contains(where: \.isNumber) && (segment.count >= 8 || segment.allSatisfy(\.isNumber))
            return id ? "{id}" : String(segment)
        }
        return "\(method) \(segments.joined(separator: "/"))"
    }
}

private struct DictionaryInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
        carrier[key] = value
    }
}

private struct HTTPFieldsExtractor: Extractor {
    func extract(key: String, from carrier: HTTPFields) -> String? {
        HTTPField.Name(key).flatMap { carrier[$0] }
    }
}
