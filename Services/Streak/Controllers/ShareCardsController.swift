import Contracts
import Hummingbird
import ServiceHTTP

/// `PUT /v1/share-cards/{id}/shared`: the user shared a card they made
/// (`POST /v1/streaks/{id}/share-card`) on Instagram, TikTok or elsewhere; the seed's
/// analytics. Someone else's card is a 404.
struct ShareCardsController: Sendable {
    let store: StreakStore
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.put("/v1/share-cards/:id/shared", use: shared)
    }

    @Sendable func shared(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let id = try ObjectID.path(context.parameters.require("id"), "Share card")
        let body = try await request.decodeJSON(as: ShareCardShared.self, context: context)
        guard let card = try await store.markShared(id, by: user.userID, on: body.platform, at: clock.now()) else {
            throw ServiceError.notFound("Share card")
        }
        return try Response.json(card)
    }
}
