import Contracts
import Hummingbird
import ServiceKit

/// `GET /internal/media/{id}`: the owner and state of a media object, for services that are
/// about to reference it.
struct InternalMediaController: Sendable {
    let store: MediaStore

    static let callers: Set<ServiceName> = [.feed, .streak, .auth, .alerts]

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.get("/internal/media/:id", use: show)
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await PeerIdentity.require(context, oneOf: Self.callers)
        let id = try ObjectID.path(context.parameters.require("id"), "Media")
        guard let record = try await store.media(id: id) else { throw ServiceError.notFound("Media") }
        return try Response.json(record.summary)
    }
}
