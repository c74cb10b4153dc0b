import Contracts
import Foundation
import Hummingbird
import ServiceKit

/// `POST /v1/snaps`: today's photo, which counts for every streak whose partner snapped too.
struct SnapsController: Sendable {
    let store: StreakStore
    let media: Lookup<MediaSummary>
    let clock: any WallClock
    let entropy: any Entropy

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.idempotent(routes.authenticated).post("/v1/snaps", use: snap)
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
            id: entropy.uuid().uuidString.lowercased(), userId: user.userID, mediaId: mediaID,
            localDate: today.description, timeZone: zone.identifier, createdAt: now)
        let streaks = try await store.snap(record)
        let snap = Snap(
            id: record.id, mediaId: mediaID, localDate: record.localDate, timeZone: record.timeZone, createdAt: now,
            streaks: streaks.map { $0.contract(viewer: user.userID, today: today) })
        return try Response.json(snap, status: .created)
    }
}
