import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// Friend requests: send, list, withdraw, accept (which starts the pair's streak), decline. A free user
/// who already holds three active streaks can neither send nor accept one (402
/// `STREAK_LIMIT_REACHED`, the app's paywall), nor have one accepted that they sent on the free
/// plan (409 `FRIEND_STREAK_LIMIT_REACHED` to the one accepting).
struct FriendRequestsController: Sendable {
    let store: StreakStore
    let users: Lookup<UserSummary>
    let clock: any WallClock
    let entropy: any Entropy
    /// `accounts.requireVerifiedEmail`: asking needs a proven address.
    var requireVerifiedEmail = false

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.idempotent(routes.authenticated).post("/v1/friends/requests", use: send)
        routes.authenticated.get("/v1/friends/requests", use: list)
        routes.authenticated.delete("/v1/friends/requests/:id", use: withdraw)
        routes.authenticated.post("/v1/friends/requests/:id/accept", use: accept)
        routes.authenticated.post("/v1/friends/requests/:id/decline", use: decline)
    }

    /// Asks someone to be friends; they are notified through a `friend_request.sent` event.
    @Sendable func send(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        try user.requireVerifiedEmail(if: requireVerifiedEmail)
        let body = try await request.decodeJSON(as: FriendRequestCreate.self, context: context)
        let target = try ObjectID.field(body.userId, "userId")
        guard target != user.userID else { throw ServiceError.validation("You cannot befriend yourself.") }
        guard try await users.find(target) != nil, let me = try await users.find(user.userID) else {
            throw ServiceError.notFound("User")
        }
        let record = FriendRequestRecord(
            id: entropy.uuid().uuidString.lowercased(), fromUserId: user.userID, toUserId: target,
            fromPremium: user.premium, status: .pending, createdAt: clock.now(), respondedAt: nil)
        try await store.send(record, fromDisplayName: me.displayName)
        return try Response.json(record.contract, status: .created)
    }

    /// `?direction=incoming` (default) or `outgoing`: pending requests, newest first.
    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let direction = request.uri.queryParameters["direction"].map(String.init) ?? "incoming"
        guard direction == "incoming" || direction == "outgoing" else {
            throw ServiceError.validation("`direction` must be `incoming` or `outgoing`.")
        }
        let page = try PageRequest<TimePosition>(request: request)
        let records = try await store.pendingRequests(
            of: user.userID, incoming: direction == "incoming", after: page.position, limit: page.limit + 1)
        return try Response.json(
            Page(records, limit: page.limit, item: { $0 }) { TimePosition(createdAt: $0.createdAt, id: $0.id) })
    }

    /// Only the recipient can accept; answers the streak that starts now.
    @Sendable func accept(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Friend request")
        guard let me = try await users.find(user.userID) else { throw ServiceError.notFound("User") }
        let now = clock.now()
        let streak = try await store.accept(
            requestID: id, by: user.userID, displayName: me.displayName, premium: user.premium,
            newStreakID: entropy.uuid().uuidString.lowercased(), at: now)
        guard let standing = try await store.streak(id: streak.id, of: user.userID, at: now) else {
            throw ServiceError.notFound("Streak")
        }
        return try Response.json(standing.contract(viewer: user.userID))
    }

    /// Only the sender can withdraw a pending request (to send it again on Pro, say): it goes.
    @Sendable func withdraw(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Friend request")
        try await store.withdraw(requestID: id, by: user.userID)
        return Response(status: .noContent)
    }

    @Sendable func decline(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Friend request")
        let record = try await store.decline(requestID: id, by: user.userID, at: clock.now())
        return try Response.json(record.contract)
    }
}
