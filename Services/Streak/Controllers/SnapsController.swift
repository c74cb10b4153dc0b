import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// `POST /v1/snaps`: today's photo, sent into some or all of the sender's streaks.
struct SnapsController: Sendable {
    let store: StreakStore
    let media: Lookup<MediaSummary>
    let clock: any WallClock
    let entropy: any Entropy

    /// Longest caption or prompt, in characters.
    static let maxTextLength = 200
    /// Most streaks one request names.
    static let maxTargets = 100

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.idempotent(routes.authenticated).post("/v1/snaps", use: snap)
    }

    /// The snap counts for the sender's own local day (``LocalDay/counted(at:in:after:)``: a
    /// change of zone never counts a day early or twice), once per streak: a streak's day is
    /// kept when both have snapped for it.
    @Sendable func snap(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let body = try await request.decodeJSON(as: SnapCreate.self, context: context)
        let mediaID = try ObjectID.field(body.mediaId, "mediaId")
        let zone = try LocalDay.zone(named: body.timeZone)
        let targets = try body.streakIds.map { ids in
            guard (1...Self.maxTargets).contains(ids.count) else {
                throw ServiceError.validation(
                    "`streakIds` names 1 to \(Self.maxTargets) streaks (leave it out to send to all).")
            }
            return try ids.map { try ObjectID.field($0, "streakIds") }
        }
        let caption = try Self.text(body.caption, "caption")
        let prompt = try Self.text(body.prompt, "prompt")
        guard let summary = try await media.find(mediaID), summary.ownerId == user.userID else {
            throw ServiceError.notFound("Media")
        }
        // A video still processing may be sent; it counts once media says it is ready.
        guard summary.status != .rejected else {
            throw ServiceError(.mediaRejected, "This media was rejected by processing; snap another one.")
        }
        let now = clock.now()
        try await store.checkWindow(of: user.userID, zone: zone, at: now)
        let record = SnapRecord(
            id: entropy.id(at: now), userId: user.userID, mediaId: mediaID,
            localDate: LocalDay(now, in: zone).description, timeZone: zone.identifier, caption: caption, prompt: prompt,
            createdAt: now)
        let (counted, standings) = try await store.snap(
            record, ready: summary.status == .ready, into: targets, zone: zone, at: now,
            described: summary.described)
        let snap = Snap(
            id: record.id, mediaId: mediaID, localDate: counted.localDate, timeZone: counted.timeZone,
            caption: caption, prompt: prompt, createdAt: now,
            streaks: standings.map { $0.contract(viewer: user.userID) })
        return try Response.json(snap, status: .created)
    }

    /// A caption or prompt: trimmed, nil when empty, at most ``maxTextLength`` characters.
    static func text(_ value: String?, _ field: String) throws -> String? {
        guard let trimmed = value?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else {
            return nil
        }
        guard trimmed.unicodeScalars.count <= maxTextLength else {
            throw ServiceError.validation("`\(field)` is at most \(maxTextLength) characters.")
        }
        return trimmed
    }
}
