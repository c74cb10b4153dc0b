import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// `GET /v1/friends` (each friend with the streak as it stands), `GET /v1/friends/search?q=`
/// (people to add, by name or whole email, through auth), `DELETE /v1/friends/{userId}`
/// (unfriend: the streak ends) and `POST /v1/friends/{userId}/nudge` (once a day per friend).
/// Someone who is not a friend is a 404.
struct FriendsController: Sendable {
    let store: StreakStore
    let searchUsers: @Sendable (String) async throws -> [UserSummary]
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/friends", use: list)
        routes.authenticated.get("/v1/friends/search", use: search)
        routes.authenticated.delete("/v1/friends/:userId", use: unfriend)
        routes.authenticated.post("/v1/friends/:userId/nudge", use: nudge)
    }

    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let page = try PageRequest<TimePosition>(request: request)
        let friends = try await store.friends(
            of: user.userID, after: page.position, limit: page.limit + 1, at: clock.now())
        return try Response.json(
            Page(friends, limit: page.limit) {
                Friend(
                    userId: $0.standing.record.partner(of: user.userID), displayName: $0.displayName,
                    streak: $0.standing.contract(viewer: user.userID), user: $0.standing.friend)
            } position: {
                TimePosition(createdAt: $0.standing.record.createdAt, id: $0.standing.record.id)
            })
    }

    /// At most 20 people; auth validates `q` (2 to 100 characters) and matches it.
    @Sendable func search(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let query = request.uri.queryParameters.get("q") ?? ""
        // A few more than shown: the searcher and blocked people are taken out here.
        let found = try await store.relations(of: user.userID, to: searchUsers(query))
        return try Response.json(FriendSearch(users: Array(found.prefix(20))))
    }

    @Sendable func unfriend(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let friend = try ObjectID.path(context.parameters.require("userId"), "Friend")
        try await store.unfriend(friend, by: user.userID, at: clock.now())
        return Response(status: .noContent)
    }

    @Sendable func nudge(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let friend = try ObjectID.path(context.parameters.require("userId"), "Friend")
        try await store.nudge(friend, by: user.userID, at: clock.now())
        return Response(status: .noContent)
    }
}
