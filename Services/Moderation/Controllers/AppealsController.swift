import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// Appeals as moderators see them: `GET /v1/moderation/appeals` (waiting, oldest first, each
/// with its action) and `POST /v1/moderation/appeals/{id}/decision`, by a moderator other
/// than the one who acted.
struct AppealsController: Sendable {
    let store: ModerationStore
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/moderation/appeals", use: list)
        routes.authenticated.post("/v1/moderation/appeals/:id/decision", use: decide)
    }

    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        _ = try context.require(.moderator)
        let page = try PageRequest<TimePosition>(request: request)
        let found = try await store.pendingAppeals(after: page.position, limit: page.limit)
        return try Response.json(
            Page(found, limit: page.limit, item: { $0.1.contract(appeal: $0.0) }) {
                TimePosition(createdAt: $0.0.createdAt, id: $0.0.id)
            })
    }

    /// Answers the action with its decided appeal.
    @Sendable func decide(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let moderator = try context.require(.moderator)
        let id = try ObjectID.path(context.parameters.require("id"), "Appeal")
        let body = try await request.decodeJSON(as: AppealDecision.self, context: context)
        let reason = try ModerationRules.text(body.reason, "reason", within: ModerationRules.reasonLength)
        let (appeal, action) = try await store.decide(
            appeal: id, by: moderator.userID, outcome: body.outcome, reason: reason, at: clock.now())
        return try Response.json(action.contract(appeal: appeal))
    }
}
