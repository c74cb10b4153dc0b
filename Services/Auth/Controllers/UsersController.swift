import Contracts
import Hummingbird
import ServiceHTTP

/// `GET /internal/users/{id}`: whether a user exists and their display name, for services
/// that take a user id from a client (friend requests, blocks, challenges); `GET /internal/users?q=&limit=`:
/// people found by name or email (``NameSearch``), for friend search; `GET
/// /internal/users/by-username/{username}`: who holds a username, for mentions. Internal callers only.
struct UsersController: Sendable {
    let store: UserStore

    static let callers: Set<ServiceName> = [.feed, .streak, .moderation, .alerts]

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.get("/internal/users/:id", use: user)
        routes.open.get("/internal/users", use: search)
        routes.open.get("/internal/users/by-username/:username", use: userByUsername)
    }

    /// The user who holds the username now (any letter case), for feed's `@mentions`.
    @Sendable func userByUsername(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await PeerIdentity.require(context, oneOf: [.feed])
        guard case .success(let key) = UsernameRules.key(try context.parameters.require("username")),
            let record = try await store.user(usernameKey: key)
        else { throw ServiceError.notFound("User") }
        return try Response.json(record.summary)
    }

    @Sendable func search(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await PeerIdentity.require(context, oneOf: [.streak])
        let text = request.uri.queryParameters.get("q")
        let query = try NameSearch.query(text)
        let limit = request.uri.queryParameters.get("limit", as: Int.self) ?? NameSearch.maxResults
        guard (1...100).contains(limit) else {
            throw ServiceError(.validationFailed, "`limit` must be 1 to 100.")
        }
        let users = try await store.search(query, usernamePrefix: NameSearch.usernamePrefix(text), limit: limit)
        return try Response.json(UserSearch(users: users))
    }

    @Sendable func user(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await PeerIdentity.require(context, oneOf: Self.callers)
        let id = try ObjectID.path(context.parameters.require("id"), "User")
        guard let record = try await store.user(id: id) else { throw ServiceError.notFound("User") }
        return try Response.json(record.summary)
    }
}
