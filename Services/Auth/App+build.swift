import AsyncHTTPClient
import Configuration
import Contracts
import Hummingbird
import Prometheus
import ServiceKit

/// Builds the auth application; `App.swift` runs it, tests drive it in process.
func buildApplication(
    reader: ConfigReader, clock: any WallClock = SystemClock(), entropy: any Entropy = SystemEntropy(),
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
) async throws -> some ApplicationProtocol {
    let runtime = try ServiceRuntime(name: .auth, reader: reader, clock: clock, entropy: entropy, metrics: metrics)
    return try runtime.makeApplication(try await buildRouter(runtime: runtime, reader: reader))
}

/// The auth router and its long-running jobs.
func buildRouter(runtime: ServiceRuntime, reader: ConfigReader) async throws -> ServiceParts {
    let (clock, entropy) = (runtime.clock, runtime.entropy)
    let settings = try AuthSettings(reader: reader, shared: runtime.settings)
    let database = try runtime.openDatabase(registerMigrations: AuthStore.registerMigrations)
    let keyRing = try await SigningKeyRing(
        directory: settings.keysDirectory, clock: clock,
        retention: settings.accessTokenTTL + settings.keysReloadInterval + 60)
    let outbox = runtime.makeOutbox()
    let store = AuthStore(database: database, outbox: outbox)
    let verifier = runtime.makeTokenVerifier(
        source: keyRing, sessions: Lookup { try await store.sessionState(id: $0, now: clock.now()) },
        sessionsFreshFor: 0)
    let hasher = try PasswordHasher(parameters: settings.argon2, entropy: entropy)
    let pepper = try PinHasher.loadPepper(from: settings.pinPepperFile, entropy: entropy)
    let pins = PinHasher(hasher: hasher, pepper: pepper)
    let issuer = TokenIssuer(
        keyRing: keyRing, issuer: runtime.settings.tokenIssuer, audience: runtime.settings.tokenAudience,
        accessTokenTTL: settings.accessTokenTTL, refreshTokenTTL: settings.refreshTokenTTL, clock: clock,
        entropy: entropy)

    let apple = settings.apple.isEnabled ? try AppleSignIn(settings: settings.apple, clock: clock) : nil

    let router = runtime.makeRouter(readiness: ["database": ServiceRuntime.databaseCheck(database)])
    let auth = AuthController(
        store: store, hasher: hasher, issuer: issuer, clock: clock, entropy: entropy,
        refreshGrace: settings.refreshGrace, guestTokens: settings.guestTokens)
    auth.addPublicRoutes(to: router, idempotency: IdempotencyMiddleware(database: database, clock: clock))
    PinSessionsController(
        store: store, pins: pins, issuer: issuer, throttle: settings.pinThrottle, clock: clock, entropy: entropy
    ).addRoutes(to: router)
    if let apple {
        AppleController(store: store, apple: apple, issuer: issuer, clock: clock, entropy: entropy).addRoutes(
            to: router)
    }
    if let secret = settings.revenueCatSecret {
        WebhooksController(store: store, secret: secret, tokenPacks: settings.tokenPacks, clock: clock)
            .addRoutes(to: router)
    }
    KeysController(keyRing: keyRing).addRoutes(to: router)
    UsersController(store: store).addRoutes(to: router)
    InternalSessionsController(store: store, clock: clock).addRoutes(to: router)
    let authenticated = router.group().add(middleware: AuthenticationMiddleware(verifier: verifier))
    auth.addAuthenticatedRoutes(to: authenticated)
    MeController(store: store, clock: clock).addRoutes(to: authenticated)
    AdminController(store: store, clock: clock, entropy: entropy).addRoutes(to: authenticated)
    TenantsController(store: store, pins: pins, clock: clock, entropy: entropy).addRoutes(to: authenticated)
    let phoneProvider: any PhoneVerificationProvider =
        if let twilio = settings.phone.twilio {
            TwilioVerifyProvider(
                baseURL: twilio.baseURL, accountSID: twilio.accountSID, authToken: twilio.authToken,
                serviceSID: twilio.serviceSID, http: .shared)
        } else {
            LocalCodeProvider(pepper: pepper, entropy: entropy)
        }
    PhoneController(store: store, provider: phoneProvider, settings: settings.phone, clock: clock)
        .addRoutes(to: authenticated)
    let deletion = AccountDeletionController(
        store: store, hasher: hasher, apple: apple, clock: clock, entropy: entropy)
    deletion.addRoutes(to: authenticated)
    // The deletion ended every session; its progress is readable with the token used for it.
    deletion.addProgressRoute(
        to: router.group().add(
            middleware: AuthenticationMiddleware(
                verifier: runtime.makeTokenVerifier(source: keyRing, checkSessions: false))))
    return ServiceParts(
        router: router,
        services: [
            runtime.makeOutboxDispatcher(database: database, outbox: outbox),
            KeyRingWatcher(
                ring: keyRing, interval: .seconds(Int64(settings.keysReloadInterval)), logger: runtime.logger),
            DeletionWorker(
                store: store, apple: apple, clock: clock, interval: .seconds(Int64(settings.deletionCheckInterval)),
                logger: runtime.logger),
        ])
}
