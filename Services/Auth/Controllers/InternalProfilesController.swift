import Contracts
import Hummingbird
import ServiceHTTP

/// `GET /internal/profiles?limit=&cursor=`: every user as `profile.changed` says them, in id
/// order, for a service whose copy of people starts empty (``MirrorFill``).
struct InternalProfilesController: Sendable {
    let store: UserStore

    /// The services that keep a copy of people.
    static let callers: Set<ServiceName> = [.feed, .streak, .alerts, .moderation]

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.get("/internal/profiles", use: profiles)
    }

    @Sendable func profiles(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await PeerIdentity.require(context, oneOf: Self.callers)
        let page = try PageRequest<String>(request: request, defaultLimit: 500, maximum: 1000)
        return try Response.json(try await store.profiles(after: page.position, limit: page.limit))
    }
}
