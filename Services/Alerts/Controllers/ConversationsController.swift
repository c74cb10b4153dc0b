import Contracts
import Hummingbird
import ServiceHTTP

/// Conversations, as the signed-in person sees them: the inbox and requests folders,
/// one conversation and its messages, read, accept (a request), delete for oneself.
struct ConversationsController: Sendable {
    let store: AlertsStore
    let clock: any WallClock

    /// Where a page of a conversation's messages ends: the last message's number.
    struct MessagePosition: Codable, Sendable {
        var seq: Int64
    }

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/messages/conversations", use: list)
        routes.authenticated.get("/v1/messages/conversations/:id", use: show)
        routes.authenticated.get("/v1/messages/conversations/:id/messages", use: messages)
        routes.authenticatedWhileSuspended.post("/v1/messages/conversations/:id/read", use: read)
        routes.authenticated.post("/v1/messages/conversations/:id/accept", use: accept)
        routes.authenticated.delete("/v1/messages/conversations/:id", use: remove)
    }

    /// `?folder=inbox` (the default) or `requests`; most recently active first, paged.
    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let folderText = request.uri.queryParameters.get("folder") ?? MessageFolder.inbox.rawValue
        guard let folder = MessageFolder(rawValue: folderText) else {
            throw ServiceError.validation("`folder` must be `inbox` or `requests`.")
        }
        let page = try PageRequest<TimePosition>(request: request)
        let items = try await store.conversations(
            of: user.userID, in: folder, after: page.position, limit: page.limit + 1)
        return try Response.json(
            Page(items, limit: page.limit, item: { $0 }) { TimePosition(createdAt: $0.updatedAt, id: $0.id) })
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let id = try ObjectID.path(context.parameters.require("id"), "Conversation")
        guard let conversation = try await store.conversation(id, of: user.userID) else {
            throw ServiceError.notFound("Conversation")
        }
        return try Response.json(conversation)
    }

    /// Newest first, paged; only what the caller sees (not what they deleted, nor what held
    /// words they muted).
    @Sendable func messages(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let id = try ObjectID.path(context.parameters.require("id"), "Conversation")
        let page = try PageRequest<MessagePosition>(request: request, defaultLimit: 50)
        guard let side = try await store.member(of: id, user: user.userID) else {
            throw ServiceError.notFound("Conversation")
        }
        let records = try await store.messages(of: side, before: page.position?.seq, limit: page.limit + 1)
        return try Response.json(
            Page(records, limit: page.limit, item: \.message) { MessagePosition(seq: $0.seq) })
    }

    /// Everything in the conversation is read, and so are the notifications of its messages.
    @Sendable func read(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let id = try ObjectID.path(context.parameters.require("id"), "Conversation")
        guard let conversation = try await store.markConversationRead(id, of: user.userID, at: clock.now()) else {
            throw ServiceError.notFound("Conversation")
        }
        return try Response.json(conversation)
    }

    /// A request moves to the inbox (answering it does too).
    @Sendable func accept(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let id = try ObjectID.path(context.parameters.require("id"), "Conversation")
        guard let conversation = try await store.acceptConversation(id, of: user.userID) else {
            throw ServiceError.notFound("Conversation")
        }
        return try Response.json(conversation)
    }

    /// 204: gone from the caller's list and view (a request: declined) until a new message
    /// arrives; the other person's view does not change.
    @Sendable func remove(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let id = try ObjectID.path(context.parameters.require("id"), "Conversation")
        guard try await store.deleteConversation(id, of: user.userID, at: clock.now()) else {
            throw ServiceError.notFound("Conversation")
        }
        return Response(status: .noContent)
    }
}
