import Foundation
import Hummingbird
import ServiceHTTP

/// The console's second look: appeals waiting for a decision (`GET /console/appeals`) with the
/// decision form (`POST /console/appeals/{id}/decision`, by a moderator other than the one
/// who acted), and the audit log (`GET /console/audit`, newest first, `userId=` narrows it).
struct ConsoleReviewController: Sendable {
    let gate: ConsoleGate
    let pages: ConsolePages
    let store: ModerationStore

    struct DecisionForm: Decodable {
        var csrf: String
        var outcome: AppealOutcome
        var reason: String
    }

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.get("/console/appeals", use: appeals)
        routes.open.post("/console/appeals/:id/decision", use: decide)
        routes.open.get("/console/audit", use: audit)
    }

    @Sendable func appeals(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        guard let visit = try await gate.visit(request) else { return ConsolePages.redirect(to: "/console/sign-in") }
        let found = try await store.pendingAppeals(after: nil, limit: 100)
        let names = try await store.people(found.prefix(100).flatMap { [$0.1.userId, $0.1.moderatorId] })
        func name(_ id: String) -> String { ConsoleQueueController.name(names[id], or: id) }
        var values = visit.layout
        values["items"] = found.prefix(100).map { appeal, action -> [String: Any] in
            [
                "appealId": appeal.id, "action": action.action.rawValue, "user": name(action.userId),
                "moderator": name(action.moderatorId), "targetType": action.targetType.rawValue,
                "targetId": action.targetId, "reason": action.reason, "statement": appeal.statement,
                "mine": action.moderatorId == visit.moderator.userID, "csrf": visit.session.csrfToken,
            ]
        }
        if let done = request.uri.queryParameters.get("done"), AppealOutcome(rawValue: done) != nil {
            values["flash"] = "Appeal decided: \(done)."
        }
        return pages.page("appeals", values)
    }

    @Sendable func decide(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        guard let visit = try await gate.visit(request) else { return ConsolePages.redirect(to: "/console/sign-in") }
        do {
            let id = try ObjectID.path(context.parameters.require("id"), "Appeal")
            let form = try await request.consoleForm(DecisionForm.self)
            try ConsoleGate.check(form.csrf, against: visit.session.csrfToken)
            let reason = try ModerationRules.text(form.reason, "reason", within: ModerationRules.reasonLength)
            _ = try await store.decide(
                appeal: id, by: visit.moderator.userID, outcome: form.outcome, reason: reason, at: gate.clock.now())
            return ConsolePages.redirect(to: "/console/appeals?done=\(form.outcome.rawValue)")
        } catch let error as ServiceError {
            return pages.failure(error, back: "/console/appeals", visit: visit)
        }
    }

    @Sendable func audit(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        guard let visit = try await gate.visit(request) else { return ConsolePages.redirect(to: "/console/sign-in") }
        let page = try PageRequest<ModerationStore.AuditPosition>(request: request, defaultLimit: 50)
        let user = request.uri.queryParameters.get("userId").flatMap { $0.isEmpty ? nil : ObjectID.canonical($0) }
        let entries = try await store.auditLog(user.map { .user($0) } ?? .all, before: page.position, limit: page.limit)
        let shown = entries.prefix(page.limit)
        let people = shown.flatMap { [$0.actorId, $0.userId] }.compactMap { $0 }
        let names = try await store.people(people.filter { $0 != AuditEntryRecord.system })
        func name(_ id: String?) -> String { id.map { ConsoleQueueController.name(names[$0], or: $0) } ?? "" }
        var values = visit.layout
        values["userId"] = user ?? ""
        values["items"] = shown.map { entry -> [String: Any] in
            [
                "when": entry.createdAt.utcMinute, "actor": name(entry.actorId), "event": entry.event,
                "targetType": entry.targetType?.rawValue ?? "", "targetId": entry.targetId ?? "",
                "user": name(entry.userId), "reason": entry.reason ?? "",
            ]
        }
        if entries.count > page.limit, let last = entries.prefix(page.limit).last?.id {
            values["next"] = Cursor.encode(ModerationStore.AuditPosition(before: last))
        }
        return pages.page("audit", values)
    }
}
