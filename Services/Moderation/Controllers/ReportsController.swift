import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// `POST /v1/reports`: one report per user per object, of anything someone else made and the
/// reporter was shown; `GET /v1/reports`: the reporter's own reports and where each stands.
struct ReportsController: Sendable {
    let store: ModerationStore
    let subjects: ModerationSubjectLookup
    let clock: any WallClock
    let entropy: any Entropy

    static let maxDetailsLength = 1000

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.idempotent(routes.authenticated).post("/v1/reports", use: create)
        routes.authenticated.get("/v1/reports", use: list)
    }

    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let body = try await request.decodeJSON(as: ReportCreate.self, context: context)
        guard body.targetType != .media else {
            throw ServiceError.validation("Report the post, reply, snap or message that shows it.")
        }
        let targetID = try ObjectID.field(body.targetId, "targetId")
        let details = body.details?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let details, details.unicodeScalars.count > Self.maxDetailsLength {
            throw ServiceError.validation("`details` is at most \(Self.maxDetailsLength) characters.")
        }
        guard let subject = try await subjects.find(body.targetType, targetID, user.userID) else {
            // What reports hid is not shown any more, but a second report of it is still a repeat.
            if try await store.hasReported(body.targetType, targetID, by: user.userID) {
                throw ModerationStore.alreadyReported
            }
            throw ServiceError.notFound("Object")
        }
        guard subject.ownerId != user.userID else {
            throw ServiceError.validation("You cannot report yourself or what you made.")
        }
        let reporter = try await subjects.find(.user, user.userID, nil)
        let record = try await store.report(
            ReportRecord(
                id: entropy.uuid().uuidString.lowercased(), reporterId: user.userID, targetType: body.targetType,
                targetId: targetID, targetOwnerId: subject.ownerId, reason: body.reason,
                details: details?.isEmpty == true ? nil : details, createdAt: clock.now()),
            reporterCreatedAt: reporter?.createdAt, objectCreatedAt: subject.createdAt)
        context.logger.info("report received", metadata: ["report_id": "\(record.id)", "target_id": "\(targetID)"])
        return try Response.json(record.contract, status: .created)
    }

    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let page = try PageRequest<TimePosition>(request: request)
        let records = try await store.reports(of: user.userID, after: page.position, limit: page.limit)
        return try Response.json(
            Page(records, limit: page.limit, item: \.contract) { TimePosition(createdAt: $0.createdAt, id: $0.id) })
    }
}
