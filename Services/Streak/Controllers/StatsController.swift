import Contracts
import Hummingbird
import ServiceHTTP

/// `GET /v1/streaks/stats`: the profile screen's numbers (active streaks, longest streak,
/// total snaps, recovery tokens) and its five achievements; `GET /internal/streak-stats/{id}`:
/// the three a public profile shows, for auth.
struct StatsController: Sendable {
    let store: StreakStore
    let clock: any WallClock

    static let callers: Set<ServiceName> = [.auth]

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/streaks/stats", use: stats)
        routes.open.get("/internal/streak-stats/:id", use: profileStats)
    }

    /// 404 for someone with no streak and no snap (the profile then shows none).
    @Sendable func profileStats(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await PeerIdentity.require(context, oneOf: Self.callers)
        let id = try ObjectID.path(context.parameters.require("id"), "User")
        guard let stats = try await store.profileStats(of: id, at: clock.now()) else {
            throw ServiceError.notFound("Streak stats")
        }
        return try Response.json(stats)
    }

    @Sendable func stats(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        return try Response.json(try await store.stats(of: user.userID, premium: user.premium, at: clock.now()))
    }
}
