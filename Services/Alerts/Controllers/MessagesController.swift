import Contracts
import Foundation
import Hummingbird
import ServiceHTTP
import ServiceStore

/// Direct messages, sending side: `POST /v1/messages` (to `recipientId`, opening the
/// conversation) and `POST /v1/messages/conversations/{id}/messages` (in one), deleting a
/// message for oneself, and the unread count per folder. Conversations: ``ConversationsController``.
struct MessagesController: Sendable {
    let store: AlertsStore
    let users: Lookup<UserSummary>
    let media: Lookup<MediaSummary>
    let follows: Lookup<FollowEdge>
    /// How many conversations a user may open a day.
    let newConversations: RatePolicy
    let jobs: JobQueue
    let clock: any WallClock
    let entropy: any Entropy
    /// `accounts.requireVerifiedEmail`: sending needs a proven address.
    var requireVerifiedEmail = false

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.idempotent(routes.authenticated).post("/v1/messages", use: send)
        routes.idempotent(routes.authenticated).post("/v1/messages/conversations/:id/messages", use: reply)
        routes.authenticated.get("/v1/messages/unread-count", use: unreadCount)
        routes.authenticated.delete("/v1/messages/:id", use: remove)
    }

    /// 201 with the message. The recipient must exist (404) and no block may stand between the
    /// two (403 `CANNOT_MESSAGE`); a first message to someone who does not follow the sender
    /// lands in their requests.
    @Sendable func send(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        try user.requireVerifiedEmail(if: requireVerifiedEmail)
        let draft = try await request.decodeJSON(as: MessageDraft.self, context: context, limit: 64 << 10)
        guard let recipientText = draft.recipientId else { throw ServiceError.validation("`recipientId` is required.") }
        let recipient = try ObjectID.field(recipientText, "recipientId")
        guard recipient != user.userID else { throw ServiceError.validation("You cannot message yourself.") }
        let opened = try await store.member(between: user.userID, and: recipient) != nil
        return try await send(draft, from: user, to: recipient, opened: opened)
    }

    /// 201 with the message, in a conversation of the sender's (another's: 404).
    @Sendable func reply(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        try user.requireVerifiedEmail(if: requireVerifiedEmail)
        let id = try ObjectID.path(context.parameters.require("id"), "Conversation")
        let draft = try await request.decodeJSON(as: MessageDraft.self, context: context, limit: 64 << 10)
        guard let side = try await store.member(of: id, user: user.userID) else {
            throw ServiceError.notFound("Conversation")
        }
        if let named = draft.recipientId, ObjectID.canonical(named) != side.otherUserId {
            throw ServiceError.validation("`recipientId` is not the other person of this conversation.")
        }
        return try await send(draft, from: user, to: side.otherUserId, opened: true)
    }

    @Sendable func unreadCount(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        return try Response.json(try await store.unreadConversations(of: user.userID))
    }

    /// 204: the message is gone from the caller's view only. One they cannot see is a 404.
    @Sendable func remove(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let id = try ObjectID.path(context.parameters.require("id"), "Message")
        guard try await store.deleteMessage(id, of: user.userID) else { throw ServiceError.notFound("Message") }
        return Response(status: .noContent)
    }

    private func send(
        _ draft: MessageDraft, from user: AuthenticatedUser, to recipient: String, opened: Bool
    ) async throws -> Response {
        let content = try MessageRules.content(of: draft)
        // Who the two are, from the copy of profiles; auth is asked only for one it does not
        // hold yet.
        let copied = try await store.copiedProfiles([user.userID, recipient])
        async let asked = users.findAll([user.userID, recipient].filter { copied[$0] == nil })
        async let attachment = mediaSummary(content.mediaId)
        async let folder = opened ? .inbox : folder(of: recipient, for: user.userID)
        let found = try await asked
        guard copied[recipient].map({ !$0.deleted }) ?? (found[recipient] != nil) else {
            throw ServiceError.notFound("User")
        }
        let senderName = copied[user.userID]?.displayName ?? found[user.userID]?.displayName
        let summary = try await attachment
        if let summary {
            guard summary.ownerId == user.userID else { throw ServiceError.notFound("Media") }
            switch summary.status {
            case .ready: break
            case .processing: throw ServiceError(.conflict, "This media is still being processed; try again shortly.")
            case .held: throw ServiceError(.conflict, "This media is held for a moderator's review.")
            case .rejected:
                throw ServiceError(.mediaRejected, "This media was rejected by processing; upload it again.")
            }
        }
        let outgoing = AlertsStore.OutgoingMessage(
            sender: EventActor(userId: user.userID, displayName: senderName ?? "Someone"),
            recipient: recipient, text: content.text, media: summary, recipientFolder: try await folder)
        let now = clock.now()
        switch try await store.send(
            outgoing, id: entropy.id(at: now), at: now, newConversations: newConversations, jobs: jobs)
        {
        case .blocked:
            throw ServiceError(.cannotMessage, "You cannot message this person.")
        case .sent(let message):
            return try Response.json(message.contract, status: .created)
        }
    }

    /// The media a draft names (none: nil); one that does not exist is a 404.
    private func mediaSummary(_ id: String?) async throws -> MediaSummary? {
        guard let id else { return nil }
        guard let found = try await media.find(id) else { throw ServiceError.notFound("Media") }
        return found
    }

    /// Where a new conversation lands for `recipient`: their inbox when they follow `sender`.
    private func folder(of recipient: String, for sender: String) async throws -> MessageFolder {
        try await follows.find("\(recipient)/\(sender)") == nil ? .requests : .inbox
    }
}
