import Contracts
import Hummingbird
import ServiceKit

/// `GET /v1/me` and `GET /v1/auth/sessions`.
struct MeController: Sendable {
    let store: AuthStore

    func addRoutes(to group: RouterGroup<ServiceRequestContext>) {
        group.get("/v1/me", use: me)
        group.get("/v1/auth/sessions", use: sessions)
    }

    /// The signed-in user. A token whose session was logged out no longer works here, even
    /// before it expires, because auth owns sessions and checks.
    @Sendable func me(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        guard try await store.liveSession(id: user.sessionID, userID: user.userID) != nil else {
            throw ServiceError.invalidToken
        }
        guard let record = try await store.user(id: user.userID) else { throw ServiceError.notFound("User") }
        return try Response.json(record.profile)
    }

    /// The user's live sessions, newest first, paged.
    @Sendable func sessions(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let page = try PageRequest<TimePosition>(request: request)
        let records = try await store.sessions(userID: user.userID, after: page.position, limit: page.limit + 1)
        return try Response.json(
            Page(records, limit: page.limit, item: { $0.summary(currentSessionID: user.sessionID) }) {
                TimePosition(createdAt: $0.createdAt, id: $0.id)
            })
    }
}
