import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// Head-to-head challenges: `POST /v1/challenges`, `GET /v1/challenges?box=`,
/// `GET /v1/challenges/{id}`, `PUT /v1/challenges/{id}/clip`, `POST /v1/challenges/{id}/cancel`.
struct ChallengesController: Sendable {
    let store: FeedStore
    let media: Lookup<MediaSummary>
    let users: Lookup<UserSummary>
    let settings: FeedSettings.Challenges
    let clock: any WallClock
    let entropy: any Entropy
    /// `accounts.requireVerifiedEmail`: challenging needs a proven address (SkateHubba's answer
    /// to limits dodged with throw-away accounts).
    var requireVerifiedEmail = false

    static let maxTrickLength = 80
    /// The seed's tolerance on a clip's length.
    static let durationTolerance = 500
    /// 1 hour to 14 days ahead, with a minute's slack for the client's clock.
    static let deadlineRange: ClosedRange<TimeInterval> = (3600 - 60)...(14 * 86400 + 60)

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.idempotent(routes.authenticated).post("/v1/challenges", use: create)
        routes.authenticated.get("/v1/challenges", use: list)
        routes.authenticated.get("/v1/challenges/:id", use: show)
        routes.authenticated.put("/v1/challenges/:id/clip", use: attachClip)
        routes.authenticated.post("/v1/challenges/:id/cancel", use: cancel)
    }

    /// Challenges another user (`created`); at most `feed.challenges.perHour` an hour (429 with
    /// `Retry-After` and the RateLimit headers). A blocked or unknown opponent is a 404.
    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        try user.requireVerifiedEmail(if: requireVerifiedEmail)
        let body = try await request.decodeJSON(as: CreateChallengeRequest.self, context: context)
        let opponentID = try ObjectID.field(body.opponent, "opponent")
        guard opponentID != user.userID else { throw ServiceError.validation("You cannot challenge yourself.") }
        let rules = body.rules ?? ChallengeRules()
        let maxDuration = rules.maxDuration ?? 15
        guard (1...15).contains(maxDuration) else { throw ServiceError.validation("`rules.maxDuration` is 1 to 15 s.") }
        let trick = rules.trick?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let trick, trick.unicodeScalars.count > Self.maxTrickLength {
            throw ServiceError.validation("`rules.trick` is at most \(Self.maxTrickLength) characters.")
        }
        let spotID = try rules.spotId.map { try ObjectID.field($0, "rules.spotId") }
        let now = clock.now()
        let deadline = body.deadline ?? now.addingTimeInterval(settings.answerTime)
        guard Self.deadlineRange.contains(deadline.timeIntervalSince(now)) else {
            throw ServiceError.validation("`deadline` is 1 hour to 14 days from now.")
        }
        let place = try Self.place(latitude: body.latitude, longitude: body.longitude)
        guard let opponent = try await users.find(opponentID) else { throw ServiceError.notFound("User") }
        let me = try await users.find(user.userID)
        let record = ChallengeRecord(
            id: entropy.uuid().uuidString.lowercased(), creatorId: user.userID, opponentId: opponentID,
            creatorName: me?.displayName ?? "Someone", opponentName: opponent.displayName, status: .created,
            maxDuration: maxDuration, trick: trick?.isEmpty == true ? nil : trick, spotId: spotID,
            latitude: place?.latitude, longitude: place?.longitude, deadline: deadline, createdAt: now, updatedAt: now)
        let created = try await store.create(record, limit: settings.limit)
        context.logger.info("challenge created", metadata: ["challenge_id": "\(created.id)"])
        // Read back as every answer is, with its people.
        let shown = try await store.challenge(id: created.id, viewer: user.userID)
        var response = try Response.json(
            shown?.challenge(for: user.userID) ?? created.contract(viewer: user.userID, clips: [], myVote: nil),
            status: .created)
        response.headers[.location] = "/v1/challenges/\(created.id)"
        return response
    }

    /// The caller's challenges in `box` (`incoming`, `outgoing`, `active`, `past`), newest first.
    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let name = request.uri.queryParameters["box"].map(String.init) ?? "active"
        guard let box = FeedStore.ChallengeBox(rawValue: name) else {
            let boxes = FeedStore.ChallengeBox.allCases.map(\.rawValue).joined(separator: ", ")
            throw ServiceError.validation("`box` is one of \(boxes).")
        }
        let page = try PageRequest<TimePosition>(request: request)
        let found = try await store.challenges(of: user.userID, in: box, after: page.position, limit: page.limit)
        return try Response.json(
            Page(
                found, limit: page.limit,
                item: { $0.challenge(for: user.userID) }
            ) {
                TimePosition(createdAt: $0.record.createdAt, id: $0.record.id)
            })
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Challenge")
        guard let found = try await store.challenge(id: id, viewer: user.userID) else {
            throw ServiceError.notFound("Challenge")
        }
        return try Response.json(found.challenge(for: user.userID))
    }

    /// Attaches one of the caller's videos (a `challenge_clip` upload) within the rules'
    /// length: the creator first, then the opponent, which accepts the challenge. The challenge
    /// moves on when media says the clip is ready.
    @Sendable func attachClip(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Challenge")
        let body = try await request.decodeJSON(as: AttachClipRequest.self, context: context)
        let mediaID = try ObjectID.field(body.mediaId, "mediaId")
        guard let challenge = try await store.challenge(id: id, viewer: user.userID)?.record,
            challenge.isParticipant(user.userID)
        else { throw ServiceError.notFound("Challenge") }
        guard let summary = try await media.find(mediaID), summary.ownerId == user.userID else {
            throw ServiceError.notFound("Media")
        }
        guard summary.contentType.hasPrefix("video/") else {
            throw ServiceError.validation("A challenge clip is a video (a `challenge_clip` upload).")
        }
        guard summary.status != .rejected else { throw ServiceError(.conflict, "The clip was rejected; record again.") }
        if let duration = summary.durationMs, duration > challenge.maxDuration * 1000 + Self.durationTolerance {
            throw ServiceError.validation(
                "The clip lasts \(duration) ms; this challenge allows \(challenge.maxDuration) s.")
        }
        let clip = ChallengeClipRecord(
            challengeId: id, userId: user.userID, mediaId: mediaID, state: .processing, durationMs: summary.durationMs,
            uploadedAt: clock.now())
        guard let found = try await store.attach(clip, at: clock.now()) else {
            throw ServiceError.notFound("Challenge")
        }
        return try Response.json(found.challenge(for: user.userID))
    }

    /// A participant cancels before both clips are ready (cancelling twice answers the same).
    @Sendable func cancel(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Challenge")
        guard let found = try await store.cancel(challenge: id, by: user.userID, at: clock.now()) else {
            throw ServiceError.notFound("Challenge")
        }
        return try Response.json(found.challenge(for: user.userID))
    }

    /// Both or neither of latitude and longitude.
    static func place(latitude: Double?, longitude: Double?) throws -> Coordinate? {
        switch (latitude, longitude) {
        case (nil, nil): return nil
        case (let latitude?, let longitude?): return try Coordinate(latitude: latitude, longitude: longitude)
        default: throw ServiceError.validation("Send both `latitude` and `longitude`, or neither.")
        }
    }
}
