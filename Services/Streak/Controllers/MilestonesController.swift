import Contracts
import Hummingbird
import ServiceKit

/// `GET /v1/streaks/{id}/milestone-data`: what StreakSnap's share card shows (the count, the
/// run's first day, both of the pair, the milestones reached and the next one).
struct MilestonesController: Sendable {
    let store: StreakStore
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/streaks/:id/milestone-data", use: data)
    }

    @Sendable func data(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Streak")
        guard let data = try await store.milestoneData(of: id, viewer: user.userID, at: clock.now()) else {
            throw ServiceError.notFound("Streak")
        }
        return try Response.json(data)
    }
}
