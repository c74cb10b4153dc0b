import Contracts
import Foundation
import Hummingbird
import ServiceKit

/// `GET /v1/moderation/audit` (moderators): the append-only log, newest first; `userId=` or
/// `targetType=` with `targetId=` narrow it to one person or one object.
struct AuditLogController: Sendable {
    let store: ModerationStore

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/moderation/audit", use: list)
    }

    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        _ = try context.require(.moderator)
        let page = try PageRequest<ModerationStore.AuditPosition>(request: request)
        let entries = try await store.auditLog(try Self.filter(request), before: page.position, limit: page.limit)
        return try Response.json(
            Page(entries, limit: page.limit, item: \.contract) { ModerationStore.AuditPosition(before: $0.id ?? 0) })
    }

    static func filter(_ request: Request) throws -> ModerationStore.AuditFilter {
        let user = try request.queryValue("userId").map { try ObjectID.field(String($0), "userId") }
        let type = try request.queryValue("targetType").map { text in
            guard let type = ReportTargetType(rawValue: String(text)) else {
                throw ServiceError.validation(
                    "`targetType` must be one of \(ReportTargetType.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            return type
        }
        let target = try request.queryValue("targetId").map { try ObjectID.field(String($0), "targetId") }
        switch (user, type, target) {
        case (nil, nil, nil): return .all
        case (let user?, nil, nil): return .user(user)
        case (nil, let type?, let target?): return .target(type, target)
        default:
            throw ServiceError.validation("Give `userId`, or `targetType` with `targetId`, or neither.")
        }
    }
}
