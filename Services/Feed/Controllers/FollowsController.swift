import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// The follow graph: `GET`, `PUT` and `DELETE /v1/users/{id}/follow`,
/// `GET /v1/users/{id}/followers` and `GET /v1/users/{id}/following`.
struct FollowsController: Sendable {
    let store: FeedStore
    let users: Lookup<UserSummary>
    let limit: RatePolicy
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/users/:id/follow", use: show)
        routes.authenticated.put("/v1/users/:id/follow", use: follow)
        routes.authenticated.delete("/v1/users/:id/follow", use: unfollow)
        routes.authenticated.get("/v1/users/:id/followers", use: followers)
        routes.authenticated.get("/v1/users/:id/following", use: following)
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "User")
        guard let state = try await store.followState(of: id, viewer: user.userID) else {
            throw ServiceError.notFound("User")
        }
        return try Response.json(state)
    }

    /// Follows the user (following already changes nothing); a user who does not exist, or
    /// whom a block stands between, is a 404.
    @Sendable func follow(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "User")
        guard id != user.userID else { throw ServiceError.validation("You cannot follow yourself.") }
        // Both asked at once: whether they exist, and my name for their notification.
        let found = try await users.findAll([id, user.userID])
        guard found[id] != nil else { throw ServiceError.notFound("User") }
        let follower = EventActor(userId: user.userID, displayName: found[user.userID]?.displayName ?? "Someone")
        guard let state = try await store.follow(id, by: follower, at: clock.now(), limit: limit) else {
            throw ServiceError.notFound("User")
        }
        return try Response.json(state)
    }

    /// Stops following (not following changes nothing).
    @Sendable func unfollow(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "User")
        guard let state = try await store.unfollow(id, by: user.userID) else { throw ServiceError.notFound("User") }
        return try Response.json(state)
    }

    @Sendable func followers(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await list(.followers, request, context: context)
    }

    @Sendable func following(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await list(.following, request, context: context)
    }

    /// A page of either list, newest follow first, each person as their list row shows them
    /// (from feed's own copy of profiles: no call to auth per page).
    private func list(
        _ list: FeedStore.FollowList, _ request: Request, context: ServiceRequestContext
    ) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "User")
        let page = try PageRequest<TimePosition>(request: request)
        guard
            let found = try await store.follows(
                list, of: id, viewer: user.userID, after: page.position, limit: page.limit)
        else { throw ServiceError.notFound("User") }
        return try Response.json(Page(items: found.entries, nextCursor: found.next.map(Cursor.encode)))
    }
}
