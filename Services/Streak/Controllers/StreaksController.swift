import Contracts
import Foundation
import Hummingbird
import ServiceKit

/// `GET /v1/streaks`, `GET /v1/streaks/{id}` and `POST /v1/snaps`.
struct StreaksController: Sendable {
    let store: StreakStore
    let media: Lookup<MediaSummary>
    let clock: any WallClock
    let entropy: any Entropy

    func addRoutes(
        to group: RouterGroup<ServiceRequestContext>, idempotency: IdempotencyMiddleware<ServiceRequestContext>
    ) {
        group.get("/v1/streaks", use: list)
        group.get("/v1/streaks/:id", use: show)
        group.get("/v1/recovery-tokens", use: recoveryTokens)
        group.group().add(middleware: idempotency).post("/v1/snaps", use: snap)
    }

    /// `GET /v1/recovery-tokens`: how many streak recovery tokens the user holds (bought
    /// packs reach streak as `recovery_tokens.purchased` from auth's RevenueCat webhook).
    @Sendable func recoveryTokens(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        return try Response.json(RecoveryTokenBalance(balance: try await store.recoveryTokens(of: user.userID)))
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

    /// Today's photo, for the sender's own local day; it counts for every active streak.
    @Sendable func snap(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let body = try await request.decodeJSON(as: SnapCreate.self, context: context)
        let mediaID = try ObjectID.field(body.mediaId, "mediaId")
        let zone = try LocalDay.zone(named: body.timeZone)
        guard let summary = try await media.find(mediaID), summary.ownerId == user.userID else {
            throw ServiceError.notFound("Media")
        }
        guard summary.status == .ready else { throw ServiceError(.conflict, "The media is not ready.") }
        let now = clock.now()
        let today = LocalDay(now, in: zone)
        let record = SnapRecord(
            id: entropy.uuid().uuidString.lowercased(), userID: user.userID, mediaID: mediaID,
            localDate: today.description, timeZone: zone.identifier, createdAt: now)
        let streaks = try await store.snap(record)
        let snap = Snap(
            id: record.id, mediaId: mediaID, localDate: record.localDate, timeZone: record.timeZone, createdAt: now,
            streaks: streaks.map { $0.contract(viewer: user.userID, today: today) })
        return try Response.json(snap, status: .created)
    }
}
