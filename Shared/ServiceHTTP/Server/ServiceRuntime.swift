import Configuration
import Contracts
import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
import Logging
import NIOCore
import Prometheus
import ServiceLifecycle

/// Everything a service's `buildApplication` gets from the kit: settings, logger, clock,
/// randomness, TLS material, the internal client and the metrics registry; and the pieces it
/// assembles the same way everywhere (router with standard middleware, token verifier,
/// application with the mutual-TLS HTTP/2 listener). The store layer adds the database, the
/// outbox and the job queue (`ServiceRuntime+Store`).
public struct ServiceRuntime: Sendable {
    public let settings: ServiceSettings
    public let logger: Logger
    public let clock: any WallClock
    public let entropy: any Entropy
    public let tls: TLSMaterial
    public let client: InternalClient
    public let metrics: PrometheusCollectorRegistry
    /// Where token verifiers get auth's public keys (auth's JWKS over mutual TLS by default).
    let keySource: (any PublicKeySource)?
    /// Where token verifiers learn whether a session is live (auth's
    /// `/internal/sessions/{id}` by default; nil skips the check).
    package let sessionLookup: Lookup<SessionState>?
    /// The keys media views' URLs are signed with when they are not media's, fetched
    /// (``MediaURLKeyRing/remote(_:interval:logger:)``): tests that run a service without media
    /// pass fixed ones, and its copies of people and media are then theirs to fill.
    public let viewKeys: MediaURLKeyRing?

    /// Reads the shared settings and loads the TLS material of executable `name`. Tests that
    /// run a service without auth pass their own `keySource`, and a `sessionLookup` when they
    /// test session state (without one, they skip the session check).
    public init(
        name: ServiceName, reader: ConfigReader, clock: any WallClock = SystemClock(),
        entropy: any Entropy = SystemEntropy(), metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        keySource: (any PublicKeySource)? = nil, sessionLookup: Lookup<SessionState>? = nil,
        viewKeys: MediaURLKeyRing? = nil
    ) throws {
        let settings = try ServiceSettings(name: name, reader: reader)
        var logger = Logger(label: name.rawValue)
        logger.logLevel = settings.logLevel
        self.settings = settings
        self.logger = logger
        self.clock = clock
        self.entropy = entropy
        self.tls = try TLSMaterial(paths: settings.pki)
        self.client = InternalClient(tls: tls, settings: settings)
        self.metrics = metrics
        self.keySource = keySource
        self.viewKeys = viewKeys
        self.sessionLookup =
            sessionLookup ?? (keySource == nil ? .internal(client, from: .auth, path: "/internal/sessions") : nil)
    }

    /// A token verifier that fetches auth's keys over mutual TLS and, unless `checkSessions`
    /// is false (the gateway), asks auth whether each session is live (see
    /// ``SessionStateCache``). Auth passes its own key ring and session table, read afresh
    /// on every request (`sessionsFreshFor` 0).
    public func makeTokenVerifier(
        source: (any PublicKeySource)? = nil, sessions: Lookup<SessionState>? = nil, checkSessions: Bool = true,
        sessionsFreshFor: TimeInterval? = nil
    ) -> TokenVerifier {
        let lookup = checkSessions ? (sessions ?? sessionLookup) : nil
        return TokenVerifier(
            source: source ?? keySource ?? RemoteKeySource(client: client), issuer: settings.tokenIssuer,
            audience: settings.tokenAudience, clock: clock, cacheSize: settings.tokenCacheSize,
            sessions: lookup.map {
                SessionStateCache(lookup: $0, clock: clock, freshFor: sessionsFreshFor ?? settings.sessionCheckInterval)
            }, logger: logger)
    }

    /// A router with the standard middleware: `HEAD` answers without a body, unread bodies
    /// drained (up to `drainLimit` bytes), request id and trace, metrics, request log, error
    /// envelope, and 405 with `Allow` for a served path asked with another method. A `HEAD` of
    /// a path that has a `GET` and no `HEAD` of its own is that `GET` without its body (RFC 9110
    /// §9.1: every general-purpose server answers both; uptime monitors and link checkers ask
    /// `HEAD`).
    public func makeRouter<Context: ServiceRequestContextProtocol>(
        context: Context.Type, requestLogLevel: Logger.Level = .debug, drainLimit: Int = 128 << 20
    ) -> Router<Context> {
        let router = Router(context: Context.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: HeadResponseMiddleware())
        router.add(middleware: RequestBodyDrainMiddleware(limit: drainLimit))
        router.add(middleware: RequestTracingMiddleware(entropy: entropy))
        router.add(middleware: MetricsMiddleware())
        router.add(middleware: AccessLogMiddleware(level: requestLogLevel))
        router.add(middleware: ErrorMiddleware())
        router.add(middleware: MethodNotAllowedMiddleware(router: router))
        return router
    }

    /// The groups controllers register on, on `router`, with the health and metrics routes
    /// already there: `idempotent` makes a group honour `Idempotency-Key` (the store layer's),
    /// `readiness` names the checks of `/health/ready`, `metricsAccess` who may read `/metrics`.
    public func makeRoutes<Context: ServiceRequestContextProtocol>(
        on router: Router<Context>, verifier: TokenVerifier,
        idempotent: ((RouterGroup<Context>, _ maxBodyBytes: Int) -> RouterGroup<Context>)? = nil,
        readiness: [String: HealthController.Check],
        metricsAccess: @escaping @Sendable (Request, any Channel) -> Bool = { _, _ in true }
    ) -> ServiceRoutes<Context> {
        let routes = ServiceRoutes(router: router, verifier: verifier, idempotent: idempotent)
        HealthController(
            service: settings.name, checks: readiness, metrics: metrics, metricsAccess: metricsAccess,
            dataDirectory: settings.dataDirectory
        ).addRoutes(to: routes)
        return routes
    }

    /// The internal listener: HTTP/2 over TLS 1.3 with ALPN and HTTP/1.1 fallback, client
    /// certificate from the local authority required, HTTP/2 windows sized for the uploads the
    /// gateway streams in (``WideWindowHTTP2``). `maxConcurrentStreams` bounds the requests one
    /// caller's connection carries at once (the next wait in the caller's queue); a service
    /// that holds long-lived streams for the gateway raises it.
    public func internalListener(maxConcurrentStreams: Int = 100) throws -> HTTPServerBuilder {
        try ALPNTLSChannel.builder(tls: tls.serverConfiguration()) { responder in
            WideWindowHTTP2(
                http1: HTTP1Channel(
                    responder: responder, configuration: .init(additionalChannelHandlers: [BodyChunkCopier()])),
                maxConcurrentStreams: maxConcurrentStreams,
                idleTimeout: .seconds(120), grace: .seconds(5))
        }
    }

    /// The application: the internal listener (HTTP/2 over TLS 1.3 with ALPN and HTTP/1.1
    /// fallback, client certificate from the local authority required), plus the lifecycle
    /// services (outbox dispatcher, workers, internal client shutdown).
    public func makeApplication<Context: ServiceRequestContextProtocol>(
        _ parts: ServiceParts<Context>, server: HTTPServerBuilder? = nil,
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) throws -> some ApplicationProtocol {
        let server = try server ?? internalListener()
        return PinholeApplication(
            responder: parts.router.buildResponder(),
            server: server,
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: nil),
            services: parts.services + [client.lifecycleService],
            onServerRunning: onServerRunning,
            logger: logger
        )
    }
}

/// What a service's `buildRouter` assembles: the router, and the long-running jobs
/// (outbox dispatcher, workers) that run beside the server. Tests read `router.routes` to
/// compare them with the public API description.
public struct ServiceParts<Context: ServiceRequestContextProtocol> {
    public let router: Router<Context>
    public let services: [any Service]

    public init(router: Router<Context>, services: [any Service] = []) {
        self.router = router
        self.services = services
    }
}
