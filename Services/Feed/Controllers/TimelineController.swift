import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// The following feed, `GET /v1/feed/following`, and a user's posts,
/// `GET /v1/users/{id}/posts`.
struct TimelineController: Sendable {
    let store: FeedStore
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/feed/following", use: following)
        routes.authenticated.get("/v1/users/:id/posts", use: posts)
    }

    /// My posts and those of the people I follow, and what they reposted, newest first.
    @Sendable func following(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let page = try PageRequest<TimePosition>(request: request)
        let (items, next) = try await store.following(
            viewer: user.userID, after: page.position, limit: page.limit, now: clock.now())
        return try Response.json(Page(items: items, nextCursor: next.map(Cursor.encode)))
    }

    /// The user's posts and quotes (not replies), newest first; across a block a 404.
    @Sendable func posts(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "User")
        let page = try PageRequest<TimePosition>(request: request)
        guard
            let posts = try await store.posts(
                by: id, viewer: user.userID, after: page.position, limit: page.limit, now: clock.now())
        else { throw ServiceError.notFound("User") }
        return try Response.json(posts)
    }
}
