import Contracts
import Hummingbird
import ServiceHTTP

/// Internal routes about sessions and roles.
///
/// - `GET /internal/sessions/{id}`: whether a session is live, whether it is limited, and its
///   user's roles, for the token verifier of every other service (``SessionStateCache``).
/// - `POST /internal/sessions/{id}/end`: moderation's console ends the session it signed a
///   moderator in with when they sign out (body: the session's `userId`).
/// - `POST /internal/admin/roles`: the `pinhole admin grant` command, by its certificate, so an
///   operator can name the first admin before anyone can use the admin routes.
struct InternalSessionsController: Sendable {
    let sessions: SessionStore
    let users: UserStore
    let clock: any WallClock

    static let sessionCallers: Set<ServiceName> = [.media, .feed, .streak, .alerts, .moderation]

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.get("/internal/sessions/:id", use: session)
        routes.open.post("/internal/sessions/:id/end", use: end)
        routes.open.post("/internal/admin/roles", use: changeRole)
    }

    @Sendable func end(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await PeerIdentity.require(context, oneOf: [.moderation])
        let id = try ObjectID.path(context.parameters.require("id"), "Session")
        let body = try await request.decodeJSON(as: SessionEnd.self, context: context)
        let user = try ObjectID.field(body.userId, "userId")
        guard try await sessions.revokeSession(id: id, userID: user, reason: .logout, at: clock.now()) else {
            throw ServiceError.notFound("Session")
        }
        return Response(status: .noContent)
    }

    @Sendable func session(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await PeerIdentity.require(context, oneOf: Self.sessionCallers)
        let id = try ObjectID.path(context.parameters.require("id"), "Session")
        guard let state = try await sessions.sessionState(id: id, now: clock.now()) else {
            throw ServiceError.notFound("Session")
        }
        return try Response.json(state)
    }

    /// Grants (or with `?revoke=true`, revokes) a role to the user named by id or email.
    @Sendable func changeRole(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await PeerIdentity.require(context, oneOf: [.pinhole])
        let body = try await request.decodeJSON(as: RoleChange.self, context: context)
        let userID: String
        if let raw = body.userId {
            userID = try ObjectID.field(raw, "userId")
        } else if let email = body.email {
            guard let user = try await users.user(email: try Credentials.normalizedEmail(email)) else {
                throw ServiceError.notFound("User")
            }
            userID = user.id
        } else {
            throw ServiceError.validation("`userId` or `email` is required.")
        }
        let granted = request.uri.queryParameters.get("revoke") != "true"
        return try Response.json(try await RoleChanges.apply(body, userID: userID, granted: granted, store: users))
    }
}
