import Contracts
import Foundation
import HTTPTypes
import Logging
import Metrics
import NIOCore
import Prometheus
import ServiceHTTP
import Synchronization

/// The access log line and request metrics of a relayed request (``StreamRelay``,
/// ``FrameStream``): the same
/// line as ``AccessLogMiddleware`` writes and the same series as Hummingbird's
/// `MetricsMiddleware` counts for the pipeline's requests, so a dashboard cannot tell which
/// way a request went; `pinhole_gateway_relayed_total` counts those relayed,
/// `pinhole_gateway_relayed_kept_alive_total` those of them carried on a kept-alive HTTP/1.1
/// connection (``KeptAliveLanes``), and `pinhole_gateway_relayed_frames_total` those answered
/// frame by frame from the client's connection (``FrameRelay``).
final class RelayLog: Sendable {
    private let logger: Logger
    private let level: Logger.Level
    private let series = Mutex<[Series: (count: Metrics.Counter, duration: Metrics.Timer)]>([:])
    private let relayed: Prometheus.Counter
    private let keptAlive: Prometheus.Counter
    private let framed: Prometheus.Counter

    private struct Series: Hashable {
        let endpoint: String
        let method: HTTPRequest.Method
        let status: Int
    }

    /// `registry` is the gateway's own (what its `/metrics` shows), so the count is there even
    /// where the process's metrics system was set up by another (tests run several gateways).
    init(logger: Logger, level: Logger.Level, registry: PrometheusCollectorRegistry) {
        self.logger = logger
        self.level = level
        self.relayed = registry.makeCounter(
            name: "pinhole_gateway_relayed_total", help: "Requests relayed on their connection's event loop.")
        self.keptAlive = registry.makeCounter(
            name: "pinhole_gateway_relayed_kept_alive_total",
            help: "Relayed requests carried on a kept-alive HTTP/1.1 connection to the service.")
        self.framed = registry.makeCounter(
            name: "pinhole_gateway_relayed_frames_total",
            help: "Relayed requests answered frame by frame from the client's connection, without a stream channel.")
    }

    func answered(
        _ plan: RelayPlan, method: HTTPRequest.Method, status: Int, since start: NIODeadline, framed: Bool = false
    ) {
        let elapsed = NIODeadline.now() - start
        let key = Series(endpoint: plan.endpoint, method: method, status: status)
        let metrics = series.withLock { series in
            if let found = series[key] { return found }
            let dimensions = [
                ("http.route", key.endpoint), ("http.request.method", method.rawValue),
                ("http.response.status_code", String(status)),
            ]
            let made = (
                Metrics.Counter(label: "hb.requests", dimensions: dimensions),
                Metrics.Timer(
                    label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds)
            )
            series[key] = made
            return made
        }
        relayed.increment()
        if plan.keptAlive != nil { keptAlive.increment() }
        if framed { self.framed.increment() }
        metrics.count.increment()
        metrics.duration.recordNanoseconds(elapsed.nanoseconds)
        guard logger.logLevel <= level else { return }
        var metadata: Logger.Metadata = [
            "request_id": .string(plan.requestID), "trace_id": .string(plan.span.traceID),
            "duration_ms": .string(String(format: "%.1f", Double(elapsed.nanoseconds) / 1e6)),
        ]
        if let user = plan.userID { metadata["user_id"] = .string(user) }
        logger.log(level: level, "\(method) \(plan.path) \(status)", metadata: metadata)
    }

    func upstreamFailed(service: ServiceName, requestID: String, failure: ServiceError) {
        var metadata: Logger.Metadata = [
            "service": "\(service.rawValue)", "request_id": .string(requestID), "error": "\(failure.code)",
        ]
        if let cause = failure.cause { metadata["cause"] = .string(cause) }
        logger.warning("upstream failed", metadata: metadata)
    }

    /// The service's side failed after its answer began: the client's stream is reset.
    func answerCutOff(service: ServiceName, requestID: String, cause: String) {
        logger.warning(
            "upstream answer cut off",
            metadata: ["service": "\(service.rawValue)", "request_id": .string(requestID), "cause": .string(cause)])
    }
}
