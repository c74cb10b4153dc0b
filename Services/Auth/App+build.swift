import AsyncHTTPClient
import Configuration
import Contracts
import Hummingbird
import NIOHTTP1
import Prometheus
import ServiceHTTP
import ServiceStore

/// Builds the auth application; `App.swift` runs it, tests drive it in process.
func buildApplication(
    reader: ConfigReader, clock: any WallClock = SystemClock(), entropy: any Entropy = SystemEntropy(),
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), dependencies: AuthDependencies? = nil
) async throws -> some ApplicationProtocol {
    let runtime = try ServiceRuntime(
        name: .auth, reader: reader, clock: clock, entropy: entropy, metrics: metrics,
        viewKeys: dependencies?.viewKeys)
    return try runtime.makeApplication(
        try await buildRouter(runtime: runtime, reader: reader, dependencies: dependencies))
}

/// What auth asks other services; tests pass fakes.
struct AuthDependencies: Sendable {
    /// Whose a photo is and whether it is ready (avatars).
    var media: Lookup<MediaSummary>
    /// A user's streak numbers, for their profile.
    var streakStats: Lookup<StreakProfileStats> = .fixed([:])
    /// Moderation takes a banned user's appeal: the appeal, or its refusal (a second appeal,
    /// say) as moderation said it.
    var banAppeals: @Sendable (BanAppeal) async throws -> Appeal = { _ in
        throw ServiceError(.upstreamUnavailable, "No moderation service here.")
    }
    /// Fixed media view keys for a test without media (nil: media's own, fetched).
    var viewKeys: MediaURLKeyRing? = nil
    /// Where mail goes instead of the configured transport (a test's own).
    var mailTransport: (any MailTransport)? = nil

    static func live(_ runtime: ServiceRuntime) -> AuthDependencies {
        let client = runtime.client
        return AuthDependencies(
            media: .internal(client, from: .media, path: "/internal/media"),
            streakStats: .internal(client, from: .streak, path: "/internal/streak-stats"),
            banAppeals: { appeal in
                let response = try await client.post(appeal, to: .moderation, path: "/internal/ban-appeals")
                if response.status == .created { return try response.decode(Appeal.self) }
                guard (400..<500).contains(response.status.code), let error = response.errorEnvelope?.error else {
                    throw ServiceError(
                        .upstreamUnavailable, "The moderation service answered \(response.status.code).")
                }
                throw ServiceError(error.code, error.message)
            })
    }
}

/// The auth router and its long-running jobs.
func buildRouter(
    runtime: ServiceRuntime, reader: ConfigReader, dependencies: AuthDependencies? = nil
) async throws -> ServiceParts<ServiceRequestContext> {
    let dependencies = dependencies ?? .live(runtime)
    let (clock, entropy) = (runtime.clock, runtime.entropy)
    let settings = try AuthSettings(reader: reader, shared: runtime.settings)
    let database = try runtime.openDatabase(registerMigrations: AuthStore.registerMigrations)
    let keyRing = try await SigningKeyRing(
        directory: settings.keysDirectory, clock: clock,
        retention: settings.accessTokenTTL + settings.keysReloadInterval + 60)
    let outbox = runtime.makeOutbox()
    let views = runtime.makeViews(database: database, profiles: false)
    let jobs = runtime.makeJobQueue()
    let pepper = try PinHasher.loadPepper(from: settings.pinPepperFile, entropy: entropy)
    let mailSettings = try MailSettings(reader: reader, dataDirectory: runtime.settings.dataDirectory)
    let mail = AccountMail(
        settings: mailSettings, templates: try MailTemplates(overrides: mailSettings.templatesDirectory),
        codes: EmailCodes(pepper: pepper, entropy: entropy), jobs: jobs, clock: clock, entropy: entropy)
    let store = AuthStore(database: database, outbox: outbox, views: views.views, mail: mail)
    let sessions = store.sessions
    let verifier = runtime.makeTokenVerifier(
        source: keyRing, sessions: Lookup { try await sessions.sessionState(id: $0, now: clock.now()) },
        sessionsFreshFor: 0)
    let hasher = try PasswordHasher(parameters: settings.argon2, entropy: entropy)
    let pins = PinHasher(hasher: hasher, pepper: pepper)
    let issuer = TokenIssuer(
        keyRing: keyRing, issuer: runtime.settings.tokenIssuer, audience: runtime.settings.tokenAudience,
        accessTokenTTL: settings.accessTokenTTL, refreshTokenTTL: settings.refreshTokenTTL, clock: clock,
        entropy: entropy)
    let apple = settings.apple.isEnabled ? try AppleSignIn(settings: settings.apple, clock: clock) : nil
    let reauthentication = Reauthentication(users: store.users, hasher: hasher, apple: apple)
    let pages = try AccountPages(appName: mailSettings.appName)
    let mailPolicy = AccountMail.policy(mailSettings)
    let phoneProvider: any PhoneVerificationProvider =
        if let twilio = settings.phone.twilio {
            TwilioVerifyProvider(
                baseURL: twilio.baseURL, accountSID: twilio.accountSID, authToken: twilio.authToken,
                serviceSID: twilio.serviceSID, http: .shared)
        } else {
            LocalCodeProvider(pepper: pepper, entropy: entropy)
        }

    let (router, routes) = runtime.makeRoutes(database: database, verifier: verifier)
    AuthController(
        users: store.users, sessions: sessions, mail: mail, hasher: hasher, issuer: issuer, clock: clock,
        entropy: entropy,
        refreshGrace: settings.refreshGrace, guestTokens: settings.guestTokens
    ).addRoutes(to: routes)
    PinSessionsController(
        tenants: store.tenants, pinSignIns: store.pinSignIns, sessions: sessions, pins: pins, issuer: issuer,
        throttle: settings.pinThrottle, clock: clock, entropy: entropy
    ).addRoutes(to: routes)
    AppleController(users: store.users, apple: apple, issuer: issuer, clock: clock, entropy: entropy)
        .addRoutes(to: routes)
    if let secret = settings.revenueCatSecret {
        WebhooksController(store: store.entitlements, secret: secret, tokenPacks: settings.tokenPacks, clock: clock)
            .addRoutes(to: routes)
    }
    BanAppealsController(users: store.users, hasher: hasher, appeals: dependencies.banAppeals).addRoutes(to: routes)
    KeysController(keyRing: keyRing).addRoutes(to: routes)
    UsersController(store: store.users).addRoutes(to: routes)
    InternalProfilesController(store: store.users).addRoutes(to: routes)
    ModerationSubjectsController(owner: .auth) { [users = store.users] _, id, _ in
        try await users.user(id: id)?.moderationSubject
    }.addRoutes(to: routes)
    InternalSessionsController(sessions: sessions, users: store.users, clock: clock).addRoutes(to: routes)
    MeController(people: store.people, sessions: sessions, clock: clock).addRoutes(to: routes)
    ProfileController(
        users: store.users, people: store.people, streakStats: dependencies.streakStats, clock: clock
    ).addRoutes(to: routes)
    AvatarController(users: store.users, people: store.people, media: dependencies.media, clock: clock).addRoutes(
        to: routes)
    var inbox = EventInbox(clock: clock)
    inbox.mirrorBlocks()
    inbox.mirrorMutes()
    inbox.mirrorMedia()
    inbox.on(ProfileCountsChanged.self) { envelope, db in try UserStore.countsChanged(envelope.payload, in: db) }
    inbox.on(UserSuspended.self) { envelope, db in try RestrictionStore.suspended(envelope.payload, in: db) }
    inbox.on(UserBanned.self) { envelope, db in
        try RestrictionStore.banned(envelope.payload, at: clock.now(), outbox: outbox, in: db)
    }
    inbox.on(UserReinstated.self) { envelope, db in try RestrictionStore.reinstated(envelope.payload, in: db) }
    EventsController(inbox: inbox, database: database).addRoutes(to: routes)
    AdminController(tenants: store.tenants, users: store.users, clock: clock, entropy: entropy).addRoutes(to: routes)
    TenantsController(store: store.tenants, pins: pins, clock: clock, entropy: entropy).addRoutes(to: routes)
    PhoneController(store: store.phones, provider: phoneProvider, settings: settings.phone, clock: clock)
        .addRoutes(to: routes)
    AttestationController(
        store: store.attestation, verifier: try settings.appAttest.verifier(),
        challengeTTL: settings.appAttest.challengeTTL, clock: clock, entropy: entropy
    ).addRoutes(to: routes)
    AccountDeletionController(
        users: store.users, deletions: store.deletions,
        progressVerifier: runtime.makeTokenVerifier(source: keyRing, checkSessions: false),
        reauthentication: reauthentication, clock: clock, entropy: entropy
    ).addRoutes(to: routes)
    EmailVerificationController(email: store.email, pages: pages, policy: mailPolicy).addRoutes(to: routes)
    PasswordResetController(email: store.email, hasher: hasher, pages: pages, policy: mailPolicy).addRoutes(to: routes)
    PasswordController(users: store.users, email: store.email, hasher: hasher, reauthentication: reauthentication)
        .addRoutes(to: routes)
    EmailChangeController(
        users: store.users, email: store.email, reauthentication: reauthentication, pages: pages, policy: mailPolicy
    ).addRoutes(to: routes)
    if mailSettings.signInCodes {
        EmailSignInController(
            email: store.email, sessions: sessions, issuer: issuer, policy: mailPolicy, clock: clock, entropy: entropy
        ).addRoutes(to: routes)
    }
    var runner = runtime.makeJobRunner(database: database, queue: jobs)
    mail.register(on: &runner, transport: dependencies.mailTransport ?? mailSettings.transport())
    return ServiceParts(
        router: router,
        services: [
            runtime.makeOutboxDispatcher(database: database, outbox: outbox), runner,
            KeyRingWatcher(
                ring: keyRing, interval: .seconds(Int64(settings.keysReloadInterval)), logger: runtime.logger),
            MailHousekeeping(email: store.email, clock: clock, interval: .seconds(3600), logger: runtime.logger),
            DeletionWorker(
                deletions: store.deletions, users: store.users, apple: apple, clock: clock,
                interval: .seconds(Int64(settings.deletionCheckInterval)), logger: runtime.logger),
        ] + views.services)
}
