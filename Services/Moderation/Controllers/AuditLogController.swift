import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// `GET /v1/moderation/audit` (moderators): the append-only log, newest first, `userId=`
/// narrowing it to one person; `GET /v1/moderation/objects/{type}/{id}/audit`: one object's.
struct AuditLogController: Sendable {
    let store: ModerationStore

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/moderation/audit", use: list)
        routes.authenticated.get("/v1/moderation/objects/:type/:id/audit", use: object)
    }

    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        _ = try context.require(.moderator)
        let user = try request.queryValue("userId").map { try ObjectID.field(String($0), "userId") }
        return try await page(user.map { .user($0) } ?? .all, request)
    }

    @Sendable func object(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        _ = try context.require(.moderator)
        let (type, id) = try ModerationQueueController.target(context)
        return try await page(.target(type, id), request)
    }

    private func page(_ filter: ModerationStore.AuditFilter, _ request: Request) async throws -> Response {
        let page = try PageRequest<ModerationStore.AuditPosition>(request: request)
        let entries = try await store.auditLog(filter, before: page.position, limit: page.limit)
        return try Response.json(
            Page(entries, limit: page.limit, item: \.contract) { ModerationStore.AuditPosition(before: $0.id ?? 0) })
    }
}
