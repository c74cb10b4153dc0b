import Contracts
import Foundation
import Hummingbird
import ServiceHTTP
import ServiceStore

/// `POST /v1/mutes/words`, `GET /v1/mutes/words`, `DELETE /v1/mutes/words/{id}`. Feed learns
/// each user's list through `keyword_mutes.changed` and keeps it out of their feeds and
/// notifications.
struct KeywordMutesController: Sendable {
    let store: ModerationStore
    let clock: any WallClock
    let entropy: any Entropy

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticatedWhileSuspended.post("/v1/mutes/words", use: create)
        routes.authenticated.get("/v1/mutes/words", use: list)
        routes.authenticatedWhileSuspended.delete("/v1/mutes/words/:id", use: remove)
    }

    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let body = try await request.decodeJSON(as: KeywordMuteCreate.self, context: context)
        let phrase = body.phrase.trimmingCharacters(in: .whitespacesAndNewlines)
        let key = MutedWords.key(phrase)
        guard phrase.count <= 100, !key.isEmpty else {
            throw ServiceError.validation("`phrase` is 1 to 100 characters with at least one letter or digit.")
        }
        let now = clock.now()
        if let until = body.until, until <= now { throw ServiceError.validation("`until` must be in the future.") }
        let (record, created) = try await store.mute(
            KeywordMuteRecord(
                id: entropy.uuid().uuidString.lowercased(), userId: user.userID, phrase: phrase, phraseKey: key,
                until: body.until, createdAt: now), now: now)
        return try Response.json(record.contract, status: created ? .created : .ok)
    }

    /// The mutes that still hold, oldest first (at most 200: one page).
    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let mutes = try await store.keywordMutes(of: user.userID, now: clock.now())
        return try Response.json(Page(items: mutes.map(\.contract), nextCursor: nil))
    }

    @Sendable func remove(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Mute")
        guard try await store.unmute(id: id, of: user.userID, now: clock.now()) else {
            throw ServiceError.notFound("Mute")
        }
        return Response(status: .noContent)
    }
}
