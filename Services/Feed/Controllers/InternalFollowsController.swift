import Contracts
import Hummingbird
import ServiceHTTP

/// `GET /internal/follows/{followerId}/{followeeId}`: the follow, or 404 when there is none;
/// for alerts, whose first message from a stranger lands in requests.
struct InternalFollowsController: Sendable {
    let store: FeedStore

    static let callers: Set<ServiceName> = [.alerts]

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.get("/internal/follows/:follower/:followee", use: show)
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await PeerIdentity.require(context, oneOf: Self.callers)
        let follower = try ObjectID.path(context.parameters.require("follower"), "Follow")
        let followee = try ObjectID.path(context.parameters.require("followee"), "Follow")
        guard let record = try await store.follow(by: follower, of: followee) else {
            throw ServiceError.notFound("Follow")
        }
        return try Response.json(
            FollowEdge(followerId: record.followerId, followeeId: record.followeeId, since: record.createdAt))
    }
}
