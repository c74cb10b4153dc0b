import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// Interactions with a post: `PUT`/`DELETE /v1/posts/{id}/like`, `PUT`/`DELETE
/// /v1/posts/{id}/repost`, and the thread: `GET /v1/posts/{id}/replies`.
struct PostInteractionsController: Sendable {
    let store: FeedStore
    let users: Lookup<UserSummary>
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.put("/v1/posts/:id/like", use: like)
        routes.authenticated.delete("/v1/posts/:id/like", use: unlike)
        routes.authenticated.put("/v1/posts/:id/repost", use: repost)
        routes.authenticated.delete("/v1/posts/:id/repost", use: unrepost)
        routes.authenticated.get("/v1/posts/:id/replies", use: replies)
    }

    @Sendable func like(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await act(context) { id, actor in try await store.setLike(true, post: id, by: actor, at: clock.now()) }
    }

    @Sendable func unlike(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await act(context) { id, actor in try await store.setLike(false, post: id, by: actor, at: clock.now()) }
    }

    @Sendable func repost(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await act(context) { id, actor in try await store.setRepost(true, post: id, by: actor, at: clock.now()) }
    }

    @Sendable func unrepost(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await act(context) { id, actor in
            try await store.setRepost(false, post: id, by: actor, at: clock.now())
        }
    }

    /// Runs an idempotent action on the post named in the path by the caller (named as auth
    /// has them, for the author's notification); answers the post as it now stands.
    private func act(
        _ context: ServiceRequestContext, _ action: (String, EventActor) async throws -> Post?
    ) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Post")
        let name = try await users.find(user.userID)?.displayName ?? "Someone"
        guard let post = try await action(id, EventActor(userId: user.userID, displayName: name)) else {
            throw ServiceError.notFound("Post")
        }
        return try Response.json(post)
    }

    /// The post's direct replies, oldest first; follow a reply's own `replyCount` down the thread.
    @Sendable func replies(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Post")
        let page = try PageRequest<TimePosition>(request: request)
        guard
            let replies = try await store.replies(
                to: id, viewer: user.userID, after: page.position, limit: page.limit, now: clock.now())
        else { throw ServiceError.notFound("Post") }
        return try Response.json(replies)
    }
}
