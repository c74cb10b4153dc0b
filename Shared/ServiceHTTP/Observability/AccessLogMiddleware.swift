import Foundation
import Hummingbird
import Logging

/// One line per request once it is answered: method, path, status, duration. The line carries
/// the request id and trace id from the request's logger.
public struct AccessLogMiddleware<Context: ServiceRequestContextProtocol>: RouterMiddleware {
    let level: Logger.Level

    public init(level: Logger.Level) {
        self.level = level
    }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        context.logger.log(
            level: level, "\(request.method) \(request.uri.path) \(response.status.code)",
            metadata: ["duration_ms": .string(String(format: "%.1f", elapsed.inMilliseconds))])
        return response
    }
}
