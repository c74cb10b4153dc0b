import Hummingbird
import ServiceHTTP

/// Verifies the access token of routes that need one, with the kit's
/// ``AuthenticationMiddleware`` (401 before anything is forwarded, guests read-only); public
/// routes pass without. The gateway checks signatures only: sessions are checked by the
/// service that acts.
struct RouteAuthenticationMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let authentication: AuthenticationMiddleware<Context>

    init(verifier: TokenVerifier) {
        self.authentication = AuthenticationMiddleware(verifier: verifier)
    }

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        guard try context.requireRoute().access == .authenticated else { return try await next(request, context) }
        return try await authentication.handle(request, context: context, next: next)
    }
}
