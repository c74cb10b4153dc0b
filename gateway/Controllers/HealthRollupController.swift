import Hummingbird
import NIOHTTP1
import ServiceHTTP

/// `GET /health`: every service's readiness, asked now, concurrently, with a short timeout.
/// 200 when all are ready, 503 with the list otherwise.
struct HealthRollupController: Sendable {
    let client: InternalClient

    func addRoutes(to routes: ServiceRoutes<GatewayRequestContext>) {
        routes.open.get("/health", use: health)
    }

    @Sendable func health(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        let report = await rollup()
        return try Response.json(report, status: report.status == .ok ? .ok : .serviceUnavailable)
    }

    func rollup() async -> StackHealthReport {
        let statuses = await withTaskGroup(of: (ServiceName, HealthStatus).self) { group in
            for service in ServiceName.services {
                group.addTask {
                    let response = try? await client.send(
                        .GET, to: service, path: "/health/ready", timeout: .seconds(2))
                    return (service, response?.status.code == 200 ? .ok : .unavailable)
                }
            }
            var statuses: [String: HealthStatus] = [:]
            for await (service, status) in group { statuses[service.rawValue] = status }
            return statuses
        }
        let healthy = statuses.values.allSatisfy { $0 == .ok }
        return StackHealthReport(status: healthy ? .ok : .unavailable, services: statuses)
    }
}
