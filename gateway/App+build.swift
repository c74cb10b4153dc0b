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
    // One set of connections to the services for forwarded requests and live streams alike.
    let pool = try UpstreamPool(settings: runtime.settings, tls: runtime.tls)
    let gate = LiveStreamGate(
        verifier: runtime.makeTokenVerifier(checkSessions: false), pool: pool, perUser: settings.liveStreamsPerUser,
        logger: runtime.logger)
    return try runtime.makeApplication(
        try buildRouter(runtime: runtime, settings: settings, pool: pool),
        server: try publicListener(settings, gate: gate),
        onServerRunning: onServerRunning)
}

/// The gateway's router: its own routes (health roll-up, API description, metrics) and the
/// forwarding of everything in ``RouteTable``, over `pool` (a pool of its own when none is given).
func buildRouter(
    runtime: ServiceRuntime, settings: GatewaySettings, pool: UpstreamPool? = nil
) throws -> ServiceParts<GatewayRequestContext> {
    // The gateway checks tokens only; sessions are checked by the service that acts.
    let verifier = runtime.makeTokenVerifier(checkSessions: false)
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
    let pool = try pool ?? UpstreamPool(settings: runtime.settings, tls: runtime.tls)
    let uploadClient = InternalClient(tls: runtime.tls, settings: runtime.settings, http1Only: true)
    let forwarder = Forwarder(
        pool: pool, uploads: UploadForwarder(client: uploadClient, settings: settings), settings: settings)
    ProxyController(
        verifier: verifier, limiter: RateLimiter(), forwarder: forwarder, settings: settings,
        shares: ConnectionShares(perConnection: settings.concurrentRequestsPerConnection), clock: runtime.clock
    ).addRoutes(to: routes)
    return ServiceParts(
        router: router, services: [pool, uploadClient.lifecycleService, MemoryTrimmer.service()])
}

/// TLS with ALPN (HTTP/2, HTTP/1.1 fallback) when a public certificate is configured;
/// plaintext HTTP/1.1 plus prior-knowledge HTTP/2 otherwise. HTTP/2 either way with windows
/// sized for uploads (``WideWindowHTTP2``, ``PublicListener``).
func publicListener(_ settings: GatewaySettings, gate: LiveStreamGate) throws -> HTTPServerBuilder {
    let limits = PublicLimits(settings)
    guard let certificate = settings.publicCertificate, let key = settings.publicKey else {
        return try PublicListener.builder(tls: nil, limits: limits, gate: gate)
    }
    var tls = TLSConfiguration.makeServerConfiguration(
        certificateChain: try NIOSSLCertificate.fromPEMFile(certificate.path).map { .certificate($0) },
        privateKey: .privateKey(try NIOSSLPrivateKey(file: key.path, format: .pem)))
    tls.minimumTLSVersion = .tlsv12
    return try PublicListener.builder(tls: tls, limits: limits, gate: gate)
}

extension SocketAddress {
    /// Whether the address is 127.0.0.0/8 or ::1.
    var isLoopback: Bool {
        guard let ip = ipAddress else { return false }
        return ip.hasPrefix("127.") || ip == "::1" || ip.hasPrefix("::ffff:127.")
    }
}
