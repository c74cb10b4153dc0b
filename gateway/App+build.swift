import Configuration
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import NIOCore
import NIOSSL
import Prometheus
import ServiceHTTP

/// Builds the gateway application; `App.swift` runs it, tests drive it in process.
func buildApplication(
    reader: ConfigReader, clock: any WallClock = SystemClock(), entropy: any Entropy = SystemEntropy(),
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
    onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    let runtime = try ServiceRuntime(name: .gateway, reader: reader, clock: clock, entropy: entropy, metrics: metrics)
    let settings = try GatewaySettings(reader: reader)
    let forwarding = try Forwarding(runtime: runtime, settings: settings)
    let gate = LiveStreamGate(
        verifier: forwarding.verifier, pool: forwarding.pool, perUser: settings.liveStreamsPerUser,
        logger: runtime.logger)
    let relay = RelayRules(
        verifier: forwarding.verifier, limiter: forwarding.limiter, shares: forwarding.shares, pool: forwarding.pool,
        settings: settings, clock: runtime.clock, entropy: runtime.entropy,
        log: RelayLog(logger: runtime.logger, level: .info, registry: runtime.metrics))
    return try runtime.makeApplication(
        try buildRouter(runtime: runtime, settings: settings, forwarding: forwarding),
        server: try publicListener(settings, gate: gate, relay: settings.relay ? relay : nil),
        onServerRunning: onServerRunning)
}

/// What both ways of forwarding a request share (the pipeline's ``ProxyController`` and the
/// event loop's ``StreamRelay``), so a request is judged the same whichever way it takes: one
/// token cache, one rate limiter, one set of turns per connection, one set of connections to
/// the services (which live streams use too).
struct Forwarding: Sendable {
    let verifier: TokenVerifier
    let limiter: RateLimiter
    let shares: ConnectionShares
    let pool: UpstreamPool

    init(runtime: ServiceRuntime, settings: GatewaySettings) throws {
        // The gateway checks tokens only; sessions are checked by the service that acts.
        verifier = runtime.makeTokenVerifier(checkSessions: false)
        limiter = RateLimiter()
        shares = ConnectionShares(perConnection: settings.concurrentRequestsPerConnection, registry: runtime.metrics)
        pool = try UpstreamPool(
            settings: runtime.settings, tls: runtime.tls, keptAliveIdleTimeout: .seconds(settings.idleTimeout),
            registry: runtime.metrics)
    }
}

/// The gateway's router: its own routes (health roll-up, API description, metrics) and the
/// forwarding of everything in ``RouteTable``, with `forwarding` (its own when none is given).
func buildRouter(
    runtime: ServiceRuntime, settings: GatewaySettings, forwarding: Forwarding? = nil
) throws -> ServiceParts<GatewayRequestContext> {
    let forwarding = try forwarding ?? Forwarding(runtime: runtime, settings: settings)
    let verifier = forwarding.verifier
    // Early answers (401, 413, 429) wait for up to 4 MiB of an unread body, so a client
    // still sending gets the answer instead of a reset; larger bodies are cut off.
    let router = runtime.makeRouter(
        context: GatewayRequestContext.self, requestLogLevel: .info, drainLimit: settings.drainLimit)
    if !settings.trustedProxies.isEmpty {
        router.add(middleware: ClientAddressMiddleware(proxies: settings.trustedProxies))
    }
    router.add(middleware: HeaderLimitMiddleware(limit: settings.headerLimit))
    router.add(middleware: UnforwardedMethodMiddleware())
    if let origin = settings.corsOrigin {
        router.add(
            middleware: CORSMiddleware(
                allowOrigin: .custom(origin),
                allowHeaders: [.authorization, .contentType, .idempotencyKey],
                allowMethods: [.get, .head, .post, .put, .patch, .delete, .options],
                exposedHeaders: [
                    HeaderName.requestID, HeaderName.rateLimit, HeaderName.rateLimitPolicy, HeaderName.retryAfter,
                ]))
    }
    let metricsToken = settings.metricsToken
    let proxies = settings.trustedProxies
    let routes = runtime.makeRoutes(
        on: router, verifier: verifier, readiness: [:],
        metricsAccess: { request, channel in
            if let metricsToken {
                return AuthenticationMiddleware<GatewayRequestContext>.bearerToken(in: request.headers) == metricsToken
            }
            // A proxy on this machine is loopback too, but speaks for clients that are not.
            guard let peer = channel.remoteAddress, !proxies.contains(peer.ipAddress ?? "") else { return false }
            return peer.isLoopback
        })
    HealthRollupController(client: runtime.client).addRoutes(to: routes)
    try OpenAPIController().addRoutes(to: routes)
    try AppLinksController(settings.appLinks).addRoutes(to: routes)
    let pool = forwarding.pool
    let uploadClient = InternalClient(tls: runtime.tls, settings: runtime.settings, http1Only: true)
    let forwarder = Forwarder(
        pool: pool, uploads: UploadForwarder(client: uploadClient, settings: settings), settings: settings)
    ProxyController(
        verifier: verifier, limiter: forwarding.limiter, forwarder: forwarder, settings: settings,
        shares: forwarding.shares, clock: runtime.clock
    ).addRoutes(to: routes)
    return ServiceParts(
        router: router, services: [pool, uploadClient.lifecycleService, MemoryTrimmer.service()])
}

/// TLS with ALPN (HTTP/2, HTTP/1.1 fallback) when a public certificate is configured;
/// plaintext HTTP/1.1 plus prior-knowledge HTTP/2 otherwise. HTTP/2 either way with windows
/// sized for uploads (``WideWindowHTTP2``, ``PublicListener``).
func publicListener(
    _ settings: GatewaySettings, gate: LiveStreamGate, relay: RelayRules?
) throws
    -> HTTPServerBuilder
{
    let limits = PublicLimits(settings)
    guard let certificate = settings.publicCertificate, let key = settings.publicKey else {
        return try PublicListener.builder(tls: nil, limits: limits, gate: gate, relay: relay)
    }
    var tls = TLSConfiguration.makeServerConfiguration(
        certificateChain: try NIOSSLCertificate.fromPEMFile(certificate.path).map { .certificate($0) },
        privateKey: .privateKey(try NIOSSLPrivateKey(file: key.path, format: .pem)))
    tls.minimumTLSVersion = .tlsv12
    return try PublicListener.builder(tls: tls, limits: limits, gate: gate, relay: relay)
}

extension SocketAddress {
    /// Whether the address is 127.0.0.0/8 or ::1.
    var isLoopback: Bool {
        guard let ip = ipAddress else { return false }
        return ip.hasPrefix("127.") || ip == "::1" || ip.hasPrefix("::ffff:127.")
    }
}
