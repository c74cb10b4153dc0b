import Foundation
import HTTPTypes
import Hummingbird
import ServiceHTTP

/// Charges the request to its route's rate class (``RateClass``): per user when signed in,
/// per client address when anonymous or a guest (guests mint tokens freely), and always per
/// address for the `auth` class. Refused: 429 `RATE_LIMIT_EXCEEDED` with `Retry-After`.
/// Answers carry `RateLimit` and `RateLimit-Policy`.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let limiter: RateLimiter
    /// Empty when rate limiting is off.
    let policies: [RateClass: RatePolicy]
    let clock: any WallClock

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        let rateClass = try context.requireRoute().rateClass(for: request.method)
        guard let policy = policies[rateClass] else { return try await next(request, context) }
        let key = rateClass.limiterKey(user: context.user, clientAddress: context.clientAddress)
        let decision = limiter.check(key: key, policy: policy, now: clock.now().timeIntervalSince1970)
        guard decision.allowed else {
            throw ServiceError.rateLimited("Too many requests.", policy: policy, decision: decision)
        }
        var response = try await next(request, context)
        response.headers.append(contentsOf: decision.headers(for: policy))
        return response
    }
}
