import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// Posts and votes: `POST /v1/posts`, `GET`/`DELETE /v1/posts/{id}`, `PUT`/`DELETE
/// /v1/posts/{id}/vote`.
struct PostsController: Sendable {
    let store: FeedStore
    let media: Lookup<MediaSummary>
    let users: Lookup<UserSummary>
    let usernames: Lookup<UserSummary>
    let clock: any WallClock
    let entropy: any Entropy
    var requireVerifiedPhone = false
    /// `accounts.requireVerifiedEmail`: posting needs a proven address.
    var requireVerifiedEmail = false
    /// A recent App Attest assertion before posting (`feed.requireAttestation`); nil: off.
    var attestation: AttestationRequirement? = nil

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.idempotent(routes.authenticated).post("/v1/posts", use: create)
        routes.authenticated.get("/v1/posts/:id", use: show)
        routes.authenticated.delete("/v1/posts/:id", use: delete)
        routes.authenticated.put("/v1/posts/:id/vote", use: vote)
        routes.authenticated.delete("/v1/posts/:id/vote", use: removeVote)
    }

    /// Publishes a post (``PostDraft``): a photo at a place, or text with a link,
    /// media and place, maybe answering or quoting a post; `@username`s that someone holds tell
    /// them (``Mentions``). Media must be the author's; a single
    /// photo may still be processing (others see the post once `media.ready` arrives), several
    /// must be ready. The photos become public through `media.attached` events written with
    /// the post. Posting a photo that is already posted answers 200 with the existing post.
    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        try user.requireVerifiedEmail(if: requireVerifiedEmail)
        if requireVerifiedPhone, !user.phoneVerified {
            throw ServiceError(
                .phoneVerificationRequired, "Verify a phone number before posting: POST /v1/me/phone/verification.")
        }
        try await attestation?.check(user)
        let draft = try PostDraft(try await request.decodeJSON(as: CreatePostRequest.self, context: context))
        let found = try await media.findAll(draft.mediaIds)
        var state = MediaStatus.ready
        for id in draft.mediaIds {
            guard let summary = found[id], summary.ownerId == user.userID else { throw ServiceError.notFound("Media") }
            guard summary.status != .rejected else {
                throw ServiceError(.conflict, "The media was rejected; upload it again.")
            }
            if summary.status != .ready {
                guard draft.mediaIds.count == 1 else {
                    throw ServiceError(.conflict, "Each photo of a post with several must be processed first.")
                }
                state = summary.status
            }
        }
        // Names that nobody holds mention nobody.
        let names = Mentions.names(in: draft.text ?? "")
        let holders = try await usernames.findAll(names)
        let mentioned = names.compactMap { holders[$0]?.id }
        let needsName = draft.replyTo != nil || draft.quoteOf != nil || !mentioned.isEmpty
        let name = needsName ? try await users.find(user.userID)?.displayName : nil
        let now = clock.now()
        let record = PostRecord(
            id: entropy.id(at: now), authorId: user.userID, mediaId: draft.mediaIds.first,
            caption: draft.text, latitude: draft.place?.latitude, longitude: draft.place?.longitude,
            createdAt: now, mediaState: state, linkUrl: draft.linkURL, parentId: draft.replyTo,
            quoteOf: draft.quoteOf)
        let (post, created) = try await store.create(
            FeedStore.NewPost(
                record: record, moreMedia: Array(draft.mediaIds.dropFirst()), mentioned: mentioned,
                author: EventActor(userId: user.userID, displayName: name ?? "Someone"),
                described: draft.mediaIds.compactMap { found[$0]?.described }))
        if created { context.logger.info("post created", metadata: ["post_id": "\(post.id)"]) }
        guard let view = try await store.post(id: post.id, viewer: user.userID) else {
            throw ServiceError.notFound("Post")
        }
        var response = try Response.json(view, status: created ? .created : .ok)
        response.headers[.location] = "/v1/posts/\(post.id)"
        return response
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Post")
        guard let post = try await store.post(id: id, viewer: user.userID) else { throw ServiceError.notFound("Post") }
        return try Response.json(post)
    }

    /// Deletes the caller's own post (204); its replies keep it as a placeholder.
    @Sendable func delete(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Post")
        guard try await store.delete(post: id, by: user.userID, at: clock.now()) else {
            throw ServiceError.notFound("Post")
        }
        return Response(status: .noContent)
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
