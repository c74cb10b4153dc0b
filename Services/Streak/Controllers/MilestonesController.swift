import Contracts
import Hummingbird
import ServiceHTTP

/// `GET /v1/streaks/{id}/milestone-data` (what a share card shows: the count, the
/// run's first day, both of the pair, the milestones reached and the next one) and `POST
/// /v1/streaks/{id}/share-card` (the card itself, drawn by media as a 1080×1920 PNG in one of
/// the seed's four styles, kept as the reader's media, with a presigned GET URL, and kept by
/// streak with an id ``ShareCardsController`` marks shared).
struct MilestonesController: Sendable {
    let store: StreakStore
    let shareCards: @Sendable (ShareCardRender) async throws -> ShareCard
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/streaks/:id/milestone-data", use: data)
        routes.authenticated.post("/v1/streaks/:id/share-card", use: shareCard)
    }

    @Sendable func data(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        return try Response.json(try await milestone(context, viewer: user.userID))
    }

    /// A card of the streak as it stands; 409 while it has no day to share.
    @Sendable func shareCard(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let body = try await request.decodeJSON(as: ShareCardCreate.self, context: context)
        let data = try await milestone(context, viewer: user.userID)
        guard data.count > 0 else {
            throw ServiceError(.conflict, "This streak has no kept day to share yet.")
        }
        let card = try await shareCards(
            ShareCardRender(
                ownerId: user.userID, style: body.style ?? .orange, count: data.count,
                names: data.members.map(\.displayName), since: data.startedOn, watermark: store.settings.watermark))
        guard let kept = try await store.keep(card, of: data.streakId, by: user.userID, at: clock.now()) else {
            throw ServiceError.notFound("Streak")
        }
        return try Response.json(kept, status: .created)
    }

    private func milestone(_ context: ServiceRequestContext, viewer: String) async throws -> MilestoneData {
        let id = try ObjectID.path(context.parameters.require("id"), "Streak")
        guard let data = try await store.milestoneData(of: id, viewer: viewer, at: clock.now()) else {
            throw ServiceError.notFound("Streak")
        }
        return data
    }
}
