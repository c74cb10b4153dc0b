import Hummingbird
import ServiceHTTP

/// Every public path of ``RouteTable``, forwarded to the service that owns it through the
/// pipeline: route match → the connection's turn (``ConnectionShares``) → authentication
/// (skipped for public routes) → rate limit → body limit → ``Forwarder``. A new kind of
/// route adds a middleware here or a case to the table.
struct ProxyController: Sendable {
    let verifier: TokenVerifier
    let limiter: RateLimiter
    let forwarder: Forwarder
    let settings: GatewaySettings
    let shares: ConnectionShares
    let clock: any WallClock

    static let methods = RouteTable.forwarded.sorted { $0.rawValue < $1.rawValue }

    func addRoutes(to routes: ServiceRoutes<GatewayRequestContext>) {
        let pipeline = routes.open.group()
            .add(middleware: RouteMatchMiddleware())
            .add(middleware: ConnectionShareMiddleware(shares: shares))
            .add(middleware: RouteAuthenticationMiddleware(verifier: verifier))
            .add(
                middleware: RateLimitMiddleware(
                    limiter: limiter, policies: settings.rateLimitEnabled ? settings.policies : [:], clock: clock)
            )
            .add(
                middleware: BodyLimitMiddleware(
                    jsonLimit: settings.jsonBodyLimit, uploadLimit: settings.uploadBodyLimit))
        for method in Self.methods {
            pipeline.on("/**", method: method, use: forwarder.forward)
            // The gateway serves some documents under /.well-known itself (``AppLinksController``);
            // the router then looks no further than that folder, so the rest of it is named too.
            pipeline.on("/.well-known/**", method: method, use: forwarder.forward)
        }
    }
}
