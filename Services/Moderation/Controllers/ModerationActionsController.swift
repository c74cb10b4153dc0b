import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// `POST /v1/moderation/actions` (moderators): dismiss, remove, warn, suspend or ban, on any
/// object; `GET /v1/moderation/my-actions`: what moderators did to the reader, with each
/// action's appeal; `POST /v1/moderation/actions/{id}/appeal`: the reader's one appeal of an
/// action (open to a suspended account); `POST /internal/ban-appeals` (auth's certificate): a
/// banned user's appeal, which auth took with their email and password.
struct ModerationActionsController: Sendable {
    let store: ModerationStore
    let subjects: ModerationSubjectLookup
    let clock: any WallClock
    let entropy: any Entropy

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.idempotent(routes.authenticated).post("/v1/moderation/actions", use: create)
        routes.authenticated.get("/v1/moderation/my-actions", use: mine)
        routes.idempotent(routes.authenticatedWhileSuspended).post("/v1/moderation/actions/:id/appeal", use: appeal)
        routes.open.post("/internal/ban-appeals", use: banAppeal)
    }

    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let moderator = try context.require(.moderator)
        let body = try await request.decodeJSON(as: ModerationActionCreate.self, context: context)
        let action = try await take(body, by: moderator.userID)
        context.logger.notice(
            "moderation action", metadata: ["action_id": "\(action.id)", "action": "\(action.action.rawValue)"])
        return try Response.json(action.contract(appeal: nil), status: .created)
    }

    /// Checks and takes `body`'s action. The object must exist (its owner says whose it is);
    /// a moderator does not act on their own account or objects.
    func take(_ body: ModerationActionCreate, by moderator: String) async throws -> ModerationActionRecord {
        let targetID = try ObjectID.field(body.targetId, "targetId")
        let (reason, duration) = try ModerationRules.validate(body)
        let owner: String
        if let subject = try await subjects.find(body.targetType, targetID, nil) {
            owner = subject.ownerId
        } else if let known = try await store.moderationCase(body.targetType, targetID) {
            // Gone since it was reported (its author deleted it): the reports can still be
            // resolved and its author still answered for it.
            owner = known.target.ownerId
        } else {
            throw ServiceError.notFound("Object")
        }
        guard owner != moderator else {
            throw ServiceError(.forbidden, "Another moderator acts on your own account and objects.")
        }
        let now = clock.now()
        return try await store.act(
            ModerationActionRecord(
                id: entropy.uuid().uuidString.lowercased(), targetType: body.targetType, targetId: targetID,
                userId: owner, moderatorId: moderator, action: body.action, reason: reason,
                endsAt: duration.map(now.addingTimeInterval), createdAt: now))
    }

    @Sendable func mine(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let page = try PageRequest<TimePosition>(request: request)
        let found = try await store.actions(against: user.userID, after: page.position, limit: page.limit)
        return try Response.json(
            Page(found, limit: page.limit, item: { $0.0.contract(appeal: $0.1) }) {
                TimePosition(createdAt: $0.0.createdAt, id: $0.0.id)
            })
    }

    @Sendable func appeal(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let id = try ObjectID.path(context.parameters.require("id"), "Action")
        let body = try await request.decodeJSON(as: AppealCreate.self, context: context)
        return try await file(appeal: id, by: user.userID, statement: body.statement)
    }

    @Sendable func banAppeal(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await PeerIdentity.require(context, oneOf: [.auth])
        let body = try await request.decodeJSON(as: BanAppeal.self, context: context)
        return try await file(
            appeal: try ObjectID.field(body.actionId, "actionId"), by: try ObjectID.field(body.userId, "userId"),
            statement: body.statement)
    }

    /// `user`'s one appeal of action `id`, with their statement checked.
    private func file(appeal id: String, by user: String, statement: String) async throws -> Response {
        let statement = try ModerationRules.text(statement, "statement", within: ModerationRules.statementLength)
        let appeal = try await store.appeal(
            AppealRecord(
                id: entropy.uuid().uuidString.lowercased(), actionId: id, userId: user, statement: statement,
                status: .pending, createdAt: clock.now()))
        return try Response.json(appeal.contract, status: .created)
    }
}
