import Contracts
import Hummingbird
import ServiceHTTP

/// `GET /internal/messages/{id}/context`: a message and the five either side of it, for
/// moderation to judge a report by; nothing else of a conversation leaves alerts.
struct InternalMessagesController: Sendable {
    let store: AlertsStore

    static let callers: Set<ServiceName> = [.moderation]
    /// How many messages either side of the reported one a moderator sees.
    static let around = 5

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.get("/internal/messages/:id/context", use: context)
    }

    @Sendable func context(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await PeerIdentity.require(context, oneOf: Self.callers)
        let id = try ObjectID.path(context.parameters.require("id"), "Message")
        guard let found = try await store.context(ofMessage: id, around: Self.around) else {
            throw ServiceError.notFound("Message")
        }
        return try Response.json(found)
    }
}
