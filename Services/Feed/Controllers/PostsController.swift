import Contracts
import Foundation
import Hummingbird
import ServiceKit

/// Posts and votes: `POST /v1/posts`, `GET /v1/posts/{id}`, `PUT`/`DELETE /v1/posts/{id}/vote`.
struct PostsController: Sendable {
    let store: FeedStore
    let media: Lookup<MediaSummary>
    let clock: any WallClock
    let entropy: any Entropy
    var requireVerifiedPhone = false

    static let maxCaptionLength = 500

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.idempotent(routes.authenticated).post("/v1/posts", use: create)
        routes.authenticated.get("/v1/posts/:id", use: show)
        routes.authenticated.put("/v1/posts/:id/vote", use: vote)
        routes.authenticated.delete("/v1/posts/:id/vote", use: removeVote)
    }

    /// Publishes one of the author's photos or videos at a place; one still processing is
    /// shown to others once `media.ready` arrives. The photo becomes public through
    /// a `media.attached` event written with the post. Posting a photo that is already posted
    /// answers 200 with the existing post.
    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        if requireVerifiedPhone, !user.phoneVerified {
            throw ServiceError(
                .phoneVerificationRequired, "Verify a phone number before posting: POST /v1/me/phone/verification.")
        }
        let body = try await request.decodeJSON(as: CreatePostRequest.self, context: context)
        let mediaID = try ObjectID.field(body.mediaId, "mediaId")
        let point = try Coordinate(latitude: body.latitude, longitude: body.longitude)
        let caption = body.caption?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let caption, caption.count > Self.maxCaptionLength {
            throw ServiceError.validation("`caption` is at most \(Self.maxCaptionLength) characters.")
        }
        guard let summary = try await media.find(mediaID), summary.ownerId == user.userID else {
            throw ServiceError.notFound("Media")
        }
        guard summary.status != .rejected else {
            throw ServiceError(.conflict, "The media was rejected; upload it again.")
        }
        let record = PostRecord(
            id: entropy.uuid().uuidString.lowercased(), authorId: user.userID, mediaId: mediaID,
            caption: caption?.isEmpty == true ? nil : caption, latitude: point.latitude, longitude: point.longitude,
            createdAt: clock.now(), mediaState: summary.status)
        let (post, created) = try await store.create(record)
        if created { context.logger.info("post created", metadata: ["post_id": "\(post.id)"]) }
        let myVote = created ? nil : try await store.post(id: post.id, viewer: user.userID)?.myVote
        var response = try Response.json(post.post(myVote: myVote), status: created ? .created : .ok)
        response.headers[.location] = "/v1/posts/\(post.id)"
        return response
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Post")
        guard let post = try await store.post(id: id, viewer: user.userID) else { throw ServiceError.notFound("Post") }
        return try Response.json(post)
    }

    /// One vote per user per post; voting again changes it. Answers the post as it now stands.
    @Sendable func vote(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let body = try await request.decodeJSON(as: VoteRequest.self, context: context)
        return try await setVote(body.value, context: context)
    }

    @Sendable func removeVote(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await setVote(nil, context: context)
    }

    private func setVote(_ value: VoteValue?, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Post")
        guard let post = try await store.setVote(value, post: id, viewer: user.userID, at: clock.now()) else {
            throw ServiceError.notFound("Post")
        }
        return try Response.json(post)
    }
}
