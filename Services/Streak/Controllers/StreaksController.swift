import Contracts
import Foundation
import Hummingbird
import ServiceKit

/// `GET /v1/streaks` and `GET /v1/streaks/{id}`: the user's streaks, as of their own local day.
struct StreaksController: Sendable {
    let store: StreakStore
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/streaks", use: list)
        routes.authenticated.get("/v1/streaks/:id", use: show)
    }

    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let page = try PageRequest<TimePosition>(request: request)
        let records = try await store.streaks(of: user.userID, after: page.position, limit: page.limit + 1)
        let today = LocalDay(clock.now(), in: try await store.zone(of: user.userID))
        return try Response.json(
            Page(records, limit: page.limit, item: { $0.contract(viewer: user.userID, today: today) }) {
                TimePosition(createdAt: $0.createdAt, id: $0.id)
            })
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Streak")
        guard let record = try await store.streak(id: id, of: user.userID) else {
            throw ServiceError.notFound("Streak")
        }
        let today = LocalDay(clock.now(), in: try await store.zone(of: user.userID))
        return try Response.json(record.contract(viewer: user.userID, today: today))
    }
}
