import Configuration
import Contracts
import Foundation
import Hummingbird
import NIOHTTP1
import Prometheus
import ServiceHTTP
import ServiceStore

/// Builds the streak application; `App.swift` runs it, tests drive it in process.
func buildApplication(
    reader: ConfigReader, clock: any WallClock = SystemClock(), entropy: any Entropy = SystemEntropy(),
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry()
) async throws -> some ApplicationProtocol {
    let runtime = try ServiceRuntime(name: .streak, reader: reader, clock: clock, entropy: entropy, metrics: metrics)
    return try runtime.makeApplication(try await buildRouter(runtime: runtime, reader: reader))
}

/// What streak asks other services; tests pass fakes.
struct StreakDependencies: Sendable {
    var media: Lookup<MediaSummary>
    var users: Lookup<UserSummary>
    /// Auth finds people by name or email (friend search); its 400 for a bad query is relayed.
    var searchUsers: @Sendable (String) async throws -> [UserSummary]
    /// Media draws share cards (it holds libvips and the blobs).
    var shareCards: @Sendable (ShareCardRender) async throws -> ShareCard

    static func live(_ runtime: ServiceRuntime) -> StreakDependencies {
        let client = runtime.client
        return StreakDependencies(
            media: .internal(client, from: .media, path: "/internal/media"),
            users: .internal(client, from: .auth, path: "/internal/users"),
            searchUsers: { query in
                let q = query.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
                return try interpretSearch(
                    await client.send(.GET, to: .auth, path: "/internal/users?q=\(q)&limit=40"))
            },
            shareCards: { try await client.post($0, to: .media, path: "/internal/share-cards", answer: ShareCard.self) }
        )
    }

    /// Reads auth's answer to a search: its 400 (a query too short, say) is the client's error,
    /// relayed; anything else but 200 is auth failing.
    static func interpretSearch(_ response: InternalResponse) throws -> [UserSummary] {
        if response.status == .badRequest, let error = response.errorEnvelope?.error {
            throw ServiceError(error.code, error.message)
        }
        guard response.status == .ok else {
            throw ServiceError(
                .upstreamUnavailable, "The auth service answered \(response.status.code).", headers: [.retryAfter: "1"])
        }
        return try response.decode(UserSearch.self).users
    }
}

/// The streak router and its long-running jobs.
func buildRouter(
    runtime: ServiceRuntime, reader: ConfigReader, dependencies: StreakDependencies? = nil
) async throws -> ServiceParts<ServiceRequestContext> {
    let dependencies = dependencies ?? .live(runtime)
    let (clock, entropy) = (runtime.clock, runtime.entropy)
    let database = try runtime.openDatabase(registerMigrations: StreakStore.registerMigrations)
    let outbox = runtime.makeOutbox()
    let jobs = runtime.makeJobQueue()
    let settings = try StreakSettings(reader: reader)
    let views = runtime.makeViews(database: database)
    let store = StreakStore(
        database: database, outbox: outbox, jobs: jobs, settings: settings, entropy: entropy, views: views.views)

    var inbox = EventInbox(clock: clock)
    inbox.mirrorBlocks(onBlocked: { event, db in try store.blocked(event, at: clock.now(), in: db) })
    inbox.onUserDeleted { user, db in try StreakStore.erase(userID: user, jobs: jobs, outbox: outbox, in: db) }
    inbox.mirrorProfiles()
    inbox.mirrorMedia()
    inbox.on(MediaReady.self) { envelope, db in try store.mediaReady(envelope.payload, at: clock.now(), in: db) }
    inbox.on(MediaRejected.self) { envelope, db in try StreakStore.mediaRejected(envelope.payload, in: db) }
    inbox.on(ContentHidden.self) { envelope, db in
        let event = envelope.payload
        try StreakStore.hide(event.targetType, event.targetId, at: clock.now(), outbox: outbox, in: db)
    }
    inbox.on(ContentRemoved.self) { envelope, db in
        let event = envelope.payload
        try StreakStore.hide(event.targetType, event.targetId, at: clock.now(), outbox: outbox, in: db)
    }
    inbox.on(ContentRestored.self) { envelope, db in
        try StreakStore.restore(envelope.payload, outbox: outbox, in: db)
    }
    inbox.on(UserSuspended.self) { envelope, db in
        try store.restricted(envelope.payload.userId, .suspended, at: clock.now(), in: db)
    }
    inbox.on(UserBanned.self) { envelope, db in
        try store.restricted(envelope.payload.userId, .banned, at: clock.now(), in: db)
    }
    inbox.on(RecoveryTokensPurchased.self) { envelope, db in
        try StreakStore.credit(envelope.payload, at: clock.now(), in: db)
    }

    let (router, routes) = runtime.makeRoutes(database: database)
    EventsController(inbox: inbox, database: database).addRoutes(to: routes)
    FriendRequestsController(
        store: store, users: dependencies.users, clock: clock, entropy: entropy,
        requireVerifiedEmail: runtime.settings.requireVerifiedEmail
    ).addRoutes(to: routes)
    FriendsController(store: store, searchUsers: dependencies.searchUsers, clock: clock).addRoutes(to: routes)
    StreaksController(store: store, clock: clock).addRoutes(to: routes)
    StreakDaysController(store: store, clock: clock).addRoutes(to: routes)
    SnapsController(store: store, media: dependencies.media, clock: clock, entropy: entropy).addRoutes(to: routes)
    RecoveryTokensController(store: store, clock: clock).addRoutes(to: routes)
    SnapWindowController(store: store, clock: clock).addRoutes(to: routes)
    PromptsController(store: store, clock: clock).addRoutes(to: routes)
    MilestonesController(store: store, shareCards: dependencies.shareCards, clock: clock).addRoutes(to: routes)
    StatsController(store: store, clock: clock).addRoutes(to: routes)
    ModerationSubjectsController(owner: .streak) { _, id, viewer in
        try await store.moderationSubject(snap: id, viewer: viewer)
    }.addRoutes(to: routes)
    ShareCardsController(store: store, clock: clock).addRoutes(to: routes)

    // Each streak with a count to lose has one deadline job: at-risk, then break.
    var runner = runtime.makeJobRunner(database: database, queue: jobs)
    // The due jobs of a claim run together: one read per table for the group, not per streak,
    // settled outside the writer, which only checks and saves.
    runner.completeTogether(StreakDeadline.kind) { (jobs: [(payload: StreakDeadline.Job, attempt: JobAttempt)]) in
        let plan = try await store.planDeadlines(of: jobs.map(\.payload.streakId), at: clock.now())
        return .done(recording: { db in try store.runDeadlines(plan, in: db) })
    }
    // Each user with a friend has one window job: their window opens, then closes soon.
    runner.complete(SnapWindowJob.kind) { (job: SnapWindowJob.Job, _) in
        .done(recording: { db in try store.runWindow(of: job.userId, at: clock.now(), in: db) })
    }
    return ServiceParts(
        router: router,
        services: [runtime.makeOutboxDispatcher(database: database, outbox: outbox), runner] + views.services)
}
