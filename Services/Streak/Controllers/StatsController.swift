import Contracts
import Hummingbird
import ServiceKit

/// `GET /v1/streaks/stats`: the profile screen's numbers (active streaks, longest streak,
/// total snaps, recovery tokens) and its five achievements.
struct StatsController: Sendable {
    let store: StreakStore
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/streaks/stats", use: stats)
    }

    @Sendable func stats(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        return try Response.json(try await store.stats(of: user.userID, premium: user.premium, at: clock.now()))
    }
}
