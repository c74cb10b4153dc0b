import Contracts
import Foundation
import Hummingbird
import NIOCore
import Prometheus

/// `/health/live`, `/health/ready` and `/metrics`, the same on every executable.
///
/// Live answers as long as the process serves requests. Ready runs every named check
/// (database reachable, keys loaded, ...) and answers 503 with the failing ones when any
/// fails, so the gateway and `pinhole status` can tell a process that is up from one that
/// can do its job.
public struct HealthController: Sendable {
    /// A readiness check: true when healthy.
    public typealias Check = @Sendable () async -> Bool

    let service: ServiceName
    let checks: [String: Check]
    let metrics: PrometheusCollectorRegistry
    let metricsAccess: @Sendable (Request, any Channel) -> Bool
    /// The data directory, whose file system's free and total bytes each scrape reads
    /// (`pinhole_data_free_bytes`, `pinhole_data_size_bytes`), and where `pinhole replicate`
    /// reports this service's replication lag (`pinhole_replication_lag_seconds`).
    let dataDirectory: URL?

    /// `metricsAccess` decides who may read `/metrics`; on the internal listener every caller
    /// already holds a certificate from the local authority.
    public init(
        service: ServiceName, checks: [String: Check], metrics: PrometheusCollectorRegistry,
        metricsAccess: @escaping @Sendable (Request, any Channel) -> Bool = { _, _ in true },
        dataDirectory: URL? = nil
    ) {
        self.dataDirectory = dataDirectory
        self.service = service
        self.checks = checks
        self.metrics = metrics
        self.metricsAccess = metricsAccess
    }

    public func addRoutes<Context: ServiceRequestContextProtocol>(to routes: ServiceRoutes<Context>) {
        routes.open.get("/health/live", use: live)
        routes.open.get("/health/ready", use: ready)
        routes.open.get("/metrics", use: metricsText)
    }

    @Sendable func live(_ request: Request, context: some RequestContext) async throws -> Response {
        try Response.json(HealthReport(status: .ok, service: service, checks: [:]))
    }

    @Sendable func ready(_ request: Request, context: some RequestContext) async throws -> Response {
        let report = await readiness()
        return try Response.json(report, status: report.status == .ok ? .ok : .serviceUnavailable)
    }

    @Sendable func metricsText(
        _ request: Request, context: some ServiceRequestContextProtocol
    ) async throws -> Response {
        guard metricsAccess(request, context.channel) else {
            throw ServiceError(.forbidden, "Metrics are only served to loopback clients or with the metrics token.")
        }
        if let dataDirectory,
            let space = try? FileManager.default.attributesOfFileSystem(forPath: dataDirectory.path),
            let free = space[.systemFreeSize] as? NSNumber, let size = space[.systemSize] as? NSNumber
        {
            metrics.makeGauge(name: "pinhole_data_free_bytes").set(free.doubleValue)
            metrics.makeGauge(name: "pinhole_data_size_bytes").set(size.doubleValue)
        }
        if let dataDirectory,
            let lag = ReplicationReport.read(in: dataDirectory)?.lag(of: service.rawValue, now: Date())
        {
            metrics.makeGauge(name: "pinhole_replication_lag_seconds").set(lag)
        }
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: .init(bytes: metrics.emitToBuffer())))
    }

    /// Runs every check concurrently.
    public func readiness() async -> HealthReport {
        let results = await withTaskGroup(of: (String, Bool).self) { group in
            for (name, check) in checks {
                group.addTask { (name, await check()) }
            }
            var results: [String: HealthStatus] = [:]
            for await (name, healthy) in group {
                results[name] = healthy ? .ok : .unavailable
            }
            return results
        }
        let healthy = results.values.allSatisfy { $0 == .ok }
        return HealthReport(status: healthy ? .ok : .unavailable, service: service, checks: results)
    }
}
