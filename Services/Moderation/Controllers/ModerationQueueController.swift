import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// The moderators' queue (roles `moderator` and `admin`): reported objects oldest first with
/// their content, reporters and their owner's history; one object whole; and StreakSnap's
/// flat list of pending reports with its per-report action.
struct ModerationQueueController: Sendable {
    let store: ModerationStore
    let subjects: ModerationSubjectLookup
    let actions: ModerationActionsController

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/moderation/queue", use: queue)
        routes.authenticated.get("/v1/moderation/objects/:type/:id", use: object)
        routes.authenticated.get("/v1/moderation/reports", use: reports)
        routes.authenticated.put("/v1/moderation/reports/:id", use: actOnReport)
    }

    @Sendable func queue(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        _ = try context.require(.moderator)
        let page = try PageRequest<TimePosition>(request: request)
        let cases = try await store.queue(after: page.position, limit: page.limit)
        let shown = Array(cases.prefix(page.limit))
        let found = try await subjects.findAll(shown.map { ($0.target.targetType, $0.target.targetId) })
        let next = cases.count > page.limit ? shown.last.map(\.target).map(Self.position) : nil
        return try Response.json(
            Page(items: shown.map { $0.item(subject: found[$0.target.targetId]) }, nextCursor: next.map(Cursor.encode)))
    }

    @Sendable func object(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        _ = try context.require(.moderator)
        let (type, id) = try Self.target(context)
        guard let found = try await store.moderationCase(type, id) else { throw ServiceError.notFound("Object") }
        return try Response.json(found.item(subject: try await subjects.find(type, id, nil)))
    }

    /// StreakSnap's `GET /api/admin/moderation/reports`: open reports, oldest first.
    @Sendable func reports(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        _ = try context.require(.moderator)
        let page = try PageRequest<TimePosition>(request: request)
        let records = try await store.openReports(after: page.position, limit: page.limit)
        return try Response.json(
            Page(records, limit: page.limit, item: { $0 }) { TimePosition(createdAt: $0.createdAt, id: $0.id) })
    }

    /// StreakSnap's `PUT /api/admin/moderation/reports/{id}`: the action, taken on the object
    /// the report names (every open report of it is resolved with it).
    @Sendable func actOnReport(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let moderator = try context.require(.moderator)
        let id = try ObjectID.path(context.parameters.require("id"), "Report")
        let body = try await request.decodeJSON(as: ReportAction.self, context: context)
        guard let report = try await store.report(id: id) else { throw ServiceError.notFound("Report") }
        guard report.status == .open else { throw ServiceError(.conflict, "This report was already resolved.") }
        let action = try await actions.take(
            ModerationActionCreate(
                targetType: report.targetType, targetId: report.targetId, action: body.action, reason: body.reason,
                durationHours: body.durationHours), by: moderator.userID)
        return try Response.json(action.contract(appeal: nil), status: .created)
    }

    /// The `{type}/{id}` of an object's path; an unknown kind or a malformed id is a 404.
    static func target(_ context: ServiceRequestContext) throws -> (ReportTargetType, String) {
        guard let type = ReportTargetType(rawValue: try context.parameters.require("type")) else {
            throw ServiceError.notFound("Object")
        }
        return (type, try ObjectID.path(context.parameters.require("id"), "Object"))
    }

    static func position(_ target: ModerationTargetRecord) -> TimePosition {
        TimePosition(createdAt: target.firstOpenAt ?? .distantPast, id: target.targetId)
    }
}

extension ModerationStore.Case {
    func item(subject: ModerationSubject?) -> QueueItem {
        var item = QueueItem(
            targetType: target.targetType, targetId: target.targetId, ownerId: target.ownerId, subject: subject,
            hidden: target.hiddenAt != nil || target.removedAt != nil, weight: target.weight,
            firstReportedAt: reports.first?.createdAt,
            reports: reports.map { report in
                var queued = report.queued
                queued.reporter = people[report.reporterId]
                return queued
            }, priorActions: priorActions.map { $0.0.contract(appeal: $0.1) })
        item.owner = people[target.ownerId]
        return item
    }
}
