import Contracts
import Hummingbird
import ServiceKit

/// `GET /internal/posts/{id}`: a post's author and whether it is hidden, for moderation.
struct InternalPostsController: Sendable {
    let store: FeedStore

    static let callers: Set<ServiceName> = [.moderation]

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.get("/internal/posts/:id", use: show)
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await PeerIdentity.require(context, oneOf: Self.callers)
        let id = try ObjectID.path(context.parameters.require("id"), "Post")
        guard let summary = try await store.summary(id: id) else { throw ServiceError.notFound("Post") }
        return try Response.json(summary)
    }
}
