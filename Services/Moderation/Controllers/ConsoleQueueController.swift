import Foundation
import Hummingbird
import ServiceHTTP

/// The console's queue: reported objects oldest first (`GET /console/queue`), one object with
/// its content, reports and its owner's history (`GET /console/objects/{type}/{id}`), and the
/// action form it posts (`POST /console/objects/{type}/{id}/actions`), which takes the same
/// action as `POST /v1/moderation/actions`; and the object's pictures
/// (`GET /console/objects/{type}/{id}/media/{mediaId}`: a thumbnail, only of media the object
/// shows and only while moderation has a case on it).
struct ConsoleQueueController: Sendable {
    let gate: ConsoleGate
    let pages: ConsolePages
    let store: ModerationStore
    let subjects: ModerationSubjectLookup
    let actions: ModerationActionsController
    let previews: @Sendable (_ mediaID: String) async throws -> ByteBuffer?

    struct ActionForm: Decodable {
        var csrf: String
        var action: ModerationActionKind
        var reason: String
        var durationHours: String?
    }

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.get("/console/queue", use: queue)
        routes.open.get("/console/objects/:type/:id", use: object)
        routes.open.post("/console/objects/:type/:id/actions", use: act)
        routes.open.get("/console/objects/:type/:id/media/:mediaId", use: media)
    }

    @Sendable func queue(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        guard let visit = try await gate.visit(request) else { return ConsolePages.redirect(to: "/console/sign-in") }
        let page = try PageRequest<TimePosition>(request: request)
        let cases = try await store.queue(after: page.position, limit: page.limit)
        let shown = Array(cases.prefix(page.limit))
        let found = try await subjects.findAll(shown.map { ($0.target.targetType, $0.target.targetId) })
        var items: [[String: Any]] = []
        for item in shown {
            let target = item.target
            let subject = found[target.targetId]
            items.append([
                "type": target.targetType.rawValue, "id": target.targetId, "kind": ConsolePages.kind(target.targetType),
                "owner": Self.name(item.people[target.ownerId], or: target.ownerId),
                "excerpt": String((subject?.text ?? "(gone)").prefix(140)),
                "reportCount": item.reports.count, "weight": ConsolePages.weight(target.weight),
                "hidden": target.hiddenAt != nil, "since": (target.firstOpenAt ?? .distantPast).utcMinute,
            ])
        }
        var values = visit.layout
        values["items"] = items
        if cases.count > page.limit, let last = shown.last {
            values["next"] = Cursor.encode(ModerationQueueController.position(last.target))
        }
        return pages.page("queue", values)
    }

    @Sendable func object(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        guard let visit = try await gate.visit(request) else { return ConsolePages.redirect(to: "/console/sign-in") }
        let (type, id) = try ModerationQueueController.target(context)
        return try await objectPage(type, id, visit: visit, flash: request.uri.queryParameters.get("done"))
    }

    @Sendable func act(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        guard let visit = try await gate.visit(request) else { return ConsolePages.redirect(to: "/console/sign-in") }
        let (type, id) = try ModerationQueueController.target(context)
        let back = "/console/objects/\(type.rawValue)/\(id)"
        do {
            let form = try await request.consoleForm(ActionForm.self)
            try ConsoleGate.check(form.csrf, against: visit.session.csrfToken)
            // The hours field is the suspension's: left filled in for another action, it is ignored.
            let hours = form.action == .suspend ? form.durationHours.flatMap { $0.isEmpty ? nil : $0 } : nil
            guard hours.map({ Int($0) != nil }) ?? true else {
                throw ServiceError.validation("The hours must be a whole number.")
            }
            let action = try await actions.take(
                ModerationActionCreate(
                    targetType: type, targetId: id, action: form.action, reason: form.reason,
                    durationHours: hours.flatMap { Int($0) }), by: visit.moderator.userID)
            context.logger.notice(
                "console action", metadata: ["action_id": "\(action.id)", "action": "\(action.action.rawValue)"])
            return ConsolePages.redirect(to: back + "?done=\(action.action.rawValue)")
        } catch let error as ServiceError {
            return pages.failure(error, back: back, visit: visit)
        }
    }

    @Sendable func media(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        guard try await gate.visit(request) != nil else { return ConsolePages.redirect(to: "/console/sign-in") }
        let (type, id) = try ModerationQueueController.target(context)
        let mediaID = try ObjectID.path(context.parameters.require("mediaId"), "Media")
        guard try await store.moderationCase(type, id) != nil,
            try await subjects.find(type, id, nil)?.mediaIds.contains(mediaID) == true,
            let bytes = try await previews(mediaID)
        else { throw ServiceError.notFound("Media") }
        var headers = ConsolePages.securityHeaders
        headers[.contentType] = "image/jpeg"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: bytes))
    }

    private func objectPage(
        _ type: ReportTargetType, _ id: String, visit: ConsoleGate.Visit, flash: String?
    ) async throws -> Response {
        let subject = try await subjects.find(type, id, nil)
        let found = try await store.moderationCase(type, id)
        guard subject != nil || found != nil else {
            return pages.failure(ServiceError.notFound("Object"), back: "/console/queue", visit: visit)
        }
        let owner = subject?.ownerId ?? found?.target.ownerId ?? ""
        // The people the page names: the owner and reporters come with the case, the
        // moderators of its history from the same copy of profiles.
        let moderators = try await store.people((found?.priorActions ?? []).map(\.0.moderatorId))
        let names = (found?.people ?? [:]).merging(moderators) { own, _ in own }
        var values = visit.layout
        values.merge([
            "type": type.rawValue, "id": id, "kind": ConsolePages.kind(type),
            "ownerId": owner, "owner": Self.name(names[owner], or: owner), "exists": subject != nil,
            "text": subject?.text ?? "", "media": subject?.mediaIds ?? [],
            "created": subject.map { $0.createdAt.utcMinute } ?? "",
            "hidden": found.map { $0.target.hiddenAt != nil || $0.target.removedAt != nil } ?? false,
            "removable": ModerationRules.removable.contains(type),
            "reports": (found?.reports ?? []).map { report -> [String: Any] in
                [
                    "when": report.createdAt.utcMinute,
                    "reporter": Self.name(names[report.reporterId], or: report.reporterId),
                    "reason": report.reason.rawValue, "details": report.details ?? "",
                    "weight": ConsolePages.weight(report.weight), "status": report.status.rawValue,
                ]
            },
            "history": (found?.priorActions ?? []).map { action, _ -> [String: Any] in
                [
                    "when": action.createdAt.utcMinute, "action": action.action.rawValue,
                    "moderator": Self.name(names[action.moderatorId], or: action.moderatorId), "reason": action.reason,
                    "reversed": action.reversedAt != nil,
                ]
            },
        ]) { own, _ in own }
        if let flash, let done = ModerationActionKind(rawValue: flash) { values["flash"] = "Done: \(done.rawValue)." }
        return pages.page("object", values)
    }

    /// What the console calls a person: their display name, or their id when the copy of
    /// profiles has no name for them (not known yet, or deleted).
    static func name(_ person: PersonView?, or id: String) -> String {
        guard let person, !person.displayName.isEmpty else { return id }
        return person.displayName
    }
}
