import Contracts
import Hummingbird
import ServiceHTTP

/// `GET /v1/me`, `GET /v1/auth/sessions` and `DELETE /v1/auth/sessions/{id}`.
struct MeController: Sendable {
    let people: PeopleStore
    let sessions: SessionStore
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/me", use: me)
        routes.authenticated.get("/v1/auth/sessions", use: listSessions)
        routes.authenticatedWhileSuspended.delete("/v1/auth/sessions/:id", use: endSession)
    }

    /// The signed-in user: roles, plan, counts, avatar (what StreakSnap's settings and profile
    /// screens show), from auth's own store: every app start asks this, so it asks no other
    /// service. A token whose session was logged out no longer works here (nor anywhere), even
    /// before it expires: the verifier checks the session.
    @Sendable func me(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        guard let profile = try await people.ownProfile(userID: user.userID, at: clock.now()) else {
            throw ServiceError.notFound("User")
        }
        return try Response.json(profile)
    }

    /// The user's live sessions, newest first, paged.
    @Sendable func listSessions(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let page = try PageRequest<TimePosition>(request: request)
        let records = try await sessions.sessions(userID: user.userID, after: page.position, limit: page.limit + 1)
        return try Response.json(
            Page(records, limit: page.limit, item: { $0.summary(currentSessionID: user.sessionID) }) {
                TimePosition(createdAt: $0.createdAt, id: $0.id)
            })
    }

    /// Ends one of the user's sessions (a lost phone, say); someone else's is a 404.
    @Sendable func endSession(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let id = try ObjectID.path(context.parameters.require("id"), "Session")
        guard try await sessions.revokeSession(id: id, userID: user.userID, reason: .revoked, at: clock.now()) else {
            throw ServiceError.notFound("Session")
        }
        return Response(status: .noContent)
    }
}
