import Contracts
import Hummingbird
import ServiceKit

/// `GET /internal/users/{id}`: whether a user exists and their display name, for services
/// that take a user id from a client (friend requests, blocks). Internal callers only.
struct UsersController: Sendable {
    let store: UserStore

    static let callers: Set<ServiceName> = [.streak, .moderation]

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.get("/internal/users/:id", use: user)
    }

    @Sendable func user(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await PeerIdentity.require(context, oneOf: Self.callers)
        let id = try ObjectID.path(context.parameters.require("id"), "User")
        guard let record = try await store.user(id: id) else { throw ServiceError.notFound("User") }
        return try Response.json(UserSummary(id: record.id, displayName: record.displayName))
    }
}
