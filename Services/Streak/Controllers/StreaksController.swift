import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// `GET /v1/streaks`, `GET /v1/streaks/{id}` and `POST /v1/streaks/{id}/recover`: the user's
/// streaks as they stand now (a day that closed unsnapped has broken them, whether or not the
/// deadline job has run yet), and spending a recovery token on one.
struct StreaksController: Sendable {
    let store: StreakStore
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/streaks", use: list)
        routes.authenticated.get("/v1/streaks/:id", use: show)
        routes.idempotent(routes.authenticated).post("/v1/streaks/:id/recover", use: recover)
    }

    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let page = try PageRequest<TimePosition>(request: request)
        let standings = try await store.streaks(
            of: user.userID, after: page.position, limit: page.limit + 1, at: clock.now())
        return try Response.json(
            Page(standings, limit: page.limit, item: { $0.contract(viewer: user.userID) }) {
                TimePosition(createdAt: $0.record.createdAt, id: $0.record.id)
            })
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Streak")
        guard let standing = try await store.streak(id: id, of: user.userID, at: clock.now()) else {
            throw ServiceError.notFound("Streak")
        }
        return try Response.json(standing.contract(viewer: user.userID))
    }

    /// Either partner may recover a streak broken by a missed day, once, until the day after
    /// the missed one closes; it costs the caller one recovery token.
    @Sendable func recover(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let id = try ObjectID.path(context.parameters.require("id"), "Streak")
        let standing = try await store.recover(streakID: id, by: user.userID, premium: user.premium, at: clock.now())
        return try Response.json(standing.contract(viewer: user.userID))
    }
}
