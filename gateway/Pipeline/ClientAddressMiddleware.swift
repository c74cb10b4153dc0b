import HTTPTypes
import Hummingbird

/// Behind a trusted load balancer or reverse proxy (``TrustedProxies``), sets the request's
/// client address to the one the proxy forwarded, before anything is limited by it. Added only
/// when `public.trustedProxies` names a proxy.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let proxies: TrustedProxies
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        context.clientAddress = proxies.client(
            peer: context.clientAddress, forwardedFor: request.headers[values: .forwardedFor])
        return try await next(request, context)
    }
}
