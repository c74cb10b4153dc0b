import Contracts
import Foundation
import Hummingbird
import ServiceKit

/// `POST /v1/reports`: one report per user per target; enough distinct reporters hide it.
struct ReportsController: Sendable {
    let store: ModerationStore
    let posts: Lookup<PostSummary>
    let clock: any WallClock
    let entropy: any Entropy

    static let maxDetailsLength = 1000

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.idempotent(routes.authenticated).post("/v1/reports", use: create)
    }

    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let body = try await request.decodeJSON(as: ReportCreate.self, context: context)
        let targetID = try ObjectID.field(body.targetId, "targetId")
        let details = body.details?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let details, details.unicodeScalars.count > Self.maxDetailsLength {
            throw ServiceError.validation("`details` is at most \(Self.maxDetailsLength) characters.")
        }
        guard let post = try await posts.find(targetID) else { throw ServiceError.notFound("Post") }
        guard post.authorId != user.userID else { throw ServiceError.validation("You cannot report your own post.") }
        let record = ReportRecord(
            id: entropy.uuid().uuidString.lowercased(), reporterId: user.userID, targetType: body.targetType,
            targetId: targetID, targetOwnerId: post.authorId, reason: body.reason,
            details: details?.isEmpty == true ? nil : details, createdAt: clock.now())
        try await store.report(record)
        context.logger.info("report received", metadata: ["report_id": "\(record.id)", "target_id": "\(targetID)"])
        return try Response.json(record.contract, status: .created)
    }
}
