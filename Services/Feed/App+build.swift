import Configuration
import Contracts
import Hummingbird
import Prometheus
import ServiceHTTP
import ServiceStore

/// Builds the feed application; `App.swift` runs it, tests drive it in process.
func buildApplication(
    reader: ConfigReader, clock: any WallClock = SystemClock(), entropy: any Entropy = SystemEntropy(),
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
) async throws -> some ApplicationProtocol {
    let runtime = try ServiceRuntime(name: .feed, reader: reader, clock: clock, entropy: entropy, metrics: metrics)
    return try runtime.makeApplication(try await buildRouter(runtime: runtime, reader: reader))
}

/// What feed asks other services; tests pass fakes.
struct FeedDependencies: Sendable {
    var media: Lookup<MediaSummary>
    var users: Lookup<UserSummary> = .fixed([:])
    /// Who holds a username now (`@mentions`).
    var usernames: Lookup<UserSummary> = .fixed([:])

    static func live(_ runtime: ServiceRuntime) -> FeedDependencies {
        FeedDependencies(
            media: .internal(runtime.client, from: .media, path: "/internal/media"),
            users: .internal(runtime.client, from: .auth, path: "/internal/users"),
            usernames: .internal(runtime.client, from: .auth, path: "/internal/users/by-username"))
    }
}

/// The feed router and its long-running jobs.
func buildRouter(
    runtime: ServiceRuntime, reader: ConfigReader, dependencies: FeedDependencies? = nil
) async throws -> ServiceParts<ServiceRequestContext> {
    let settings = try FeedSettings(reader: reader)
    let dependencies = dependencies ?? .live(runtime)
    let clock = runtime.clock
    let database = try runtime.openDatabase(registerMigrations: FeedStore.registerMigrations)
    let outbox = runtime.makeOutbox()
    let jobs = runtime.makeJobQueue()
    let views = runtime.makeViews(database: database)
    let store = FeedStore(database: database, outbox: outbox, jobs: jobs, views: views.views)

    var inbox = EventInbox(clock: clock)
    inbox.on(ContentHidden.self) { envelope, db in
        let event = envelope.payload
        try FeedStore.hide(event.targetType, event.targetId, at: clock.now(), outbox: outbox, in: db)
    }
    inbox.on(ContentRemoved.self) { envelope, db in
        let event = envelope.payload
        try FeedStore.hide(event.targetType, event.targetId, at: clock.now(), outbox: outbox, in: db)
    }
    inbox.on(ContentRestored.self) { envelope, db in try FeedStore.restore(envelope.payload, outbox: outbox, in: db) }
    inbox.mirrorBlocks(onBlocked: { event, db in try store.blocked(event, at: clock.now(), in: db) })
    inbox.mirrorMutes()
    inbox.onUserDeleted { user, db in try FeedStore.erase(userID: user, jobs: jobs, outbox: outbox, in: db) }
    inbox.mirrorKeywordMutes()
    inbox.mirrorProfiles()
    inbox.mirrorMedia()
    inbox.on(MediaReady.self) { envelope, db in
        try FeedStore.mediaReady(envelope.payload, in: db)
        try store.clipReady(envelope.payload, at: clock.now(), in: db)
    }
    inbox.on(MediaRejected.self) { envelope, db in
        try FeedStore.mediaRejected(envelope.payload, in: db)
        try FeedStore.clipRejected(envelope.payload, at: clock.now(), in: db)
    }

    let (router, routes) = runtime.makeRoutes(database: database)
    EventsController(inbox: inbox, database: database).addRoutes(to: routes)
    ModerationSubjectsController(owner: .feed) { type, id, viewer in
        try await store.moderationSubject(type, id: id, viewer: viewer)
    }.addRoutes(to: routes)
    InternalFollowsController(store: store).addRoutes(to: routes)
    PostsController(
        store: store, media: dependencies.media, users: dependencies.users, usernames: dependencies.usernames,
        clock: clock, entropy: runtime.entropy,
        requireVerifiedPhone: settings.requireVerifiedPhone,
        requireVerifiedEmail: runtime.settings.requireVerifiedEmail,
        attestation: try settings.attestationMaxAge.map { maxAge in
            guard let requirement = runtime.attestationRequirement(maxAge: maxAge) else {
                throw ConfigurationError("feed.requireAttestation needs auth's session state to check.")
            }
            return requirement
        }
    ).addRoutes(to: routes)
    PostInteractionsController(store: store, users: dependencies.users, clock: clock).addRoutes(to: routes)
    TimelineController(store: store, clock: clock).addRoutes(to: routes)
    ForYouController(store: store, rankings: ForYouRankings(clock: clock), clock: clock).addRoutes(to: routes)
    SearchController(store: store, clock: clock).addRoutes(to: routes)
    NearbyController(store: store, maxRadius: settings.maxRadius, rankings: NearbyRankings(clock: clock), clock: clock)
        .addRoutes(to: routes)
    let mapIndex = MapIndexBuilder(
        store: store, clock: clock, interval: .seconds(settings.mapRebuildInterval), logger: runtime.logger)
    MapController(store: store, index: mapIndex, clock: clock).addRoutes(to: routes)
    ChallengesController(
        store: store, media: dependencies.media, users: dependencies.users, settings: settings.challenges, clock: clock,
        entropy: runtime.entropy, requireVerifiedEmail: runtime.settings.requireVerifiedEmail
    ).addRoutes(to: routes)
    ChallengeVotingController(store: store, maxRadius: settings.maxRadius, clock: clock).addRoutes(to: routes)
    SpotsController(
        store: store, media: dependencies.media, settings: settings.spots, maxRadius: settings.maxRadius, clock: clock,
        entropy: runtime.entropy
    ).addRoutes(to: routes)
    SpotVisitsController(store: store, settings: settings.spots, clock: clock, entropy: runtime.entropy)
        .addRoutes(to: routes)
    FollowsController(store: store, users: dependencies.users, limit: settings.follows, clock: clock)
        .addRoutes(to: routes)

    // Each challenge not yet finished has one deadline job: expire, open voting, or the result.
    var runner = runtime.makeJobRunner(database: database, queue: jobs)
    let votingTime = settings.challenges.votingTime
    runner.complete(TimelineFanOut.kind) { (job: TimelineFanOut.Job, _) in
        .done(recording: { db in try FeedStore.fanOut(job, jobs: jobs, in: db) })
    }
    runner.complete(ChallengeDeadline.kind) { (job: ChallengeDeadline.Job, _) in
        .done(recording: { db in
            try store.runDeadline(of: job.challengeId, votingFor: votingTime, at: clock.now(), in: db)
        })
    }
    return ServiceParts(
        router: router,
        services: [
            runtime.makeOutboxDispatcher(database: database, outbox: outbox), runner,
            FeedHousekeeper(store: store, clock: clock, settings: settings.housekeeping, logger: runtime.logger),
            mapIndex,
        ] + views.services)
}
