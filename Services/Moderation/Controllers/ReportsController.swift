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

    func addRoutes(
        to group: RouterGroup<ServiceRequestContext>, idempotency: IdempotencyMiddleware<ServiceRequestContext>
    ) {
        group.group().add(middleware: idempotency).post("/v1/reports", use: create)
    }

    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let body = try await request.decodeJSON(as: ReportCreate.self, context: context)
        let targetID = try ObjectID.field(body.targetId, "targetId")
        let details = body.details?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let details, details.count > Self.maxDetailsLength {
            throw ServiceError.validation("`details` is at most \(Self.maxDetailsLength) characters.")
        }
        guard let post = try await posts.find(targetID) else { throw ServiceError.notFound("Post") }
        guard post.authorId != user.userID else { throw ServiceError.validation("You cannot report your own post.") }
        let record = ReportRecord(
            id: entropy.uuid().uuidString.lowercased(), reporterID: user.userID, targetType: body.targetType,
            targetID: targetID, targetOwnerID: post.authorId, reason: body.reason,
            details: details?.isEmpty == true ? nil : details, createdAt: clock.now())
        try await store.report(record)
        context.logger.info("report received", metadata: ["report_id": "\(record.id)", "target_id": "\(targetID)"])
        return try Response.json(record.contract, status: .created)
    }
}

/// `POST /v1/blocks`, `GET /v1/blocks`, `DELETE /v1/blocks/{userId}`. Feed and streak learn
/// of blocks through events and keep their own copies.
struct BlocksController: Sendable {
    let store: ModerationStore
    let users: Lookup<UserSummary>
    let clock: any WallClock

    func addRoutes(to group: RouterGroup<ServiceRequestContext>) {
        group.post("/v1/blocks", use: create)
        group.get("/v1/blocks", use: list)
        group.delete("/v1/blocks/:userId", use: remove)
    }

    /// 201 for a new block, 200 with the same body when it already stood.
    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let body = try await request.decodeJSON(as: BlockCreate.self, context: context)
        let target = try ObjectID.field(body.userId, "userId")
        guard target != user.userID else { throw ServiceError.validation("You cannot block yourself.") }
        guard try await users.find(target) != nil else { throw ServiceError.notFound("User") }
        let (record, created) = try await store.block(
            BlockRecord(blockerID: user.userID, blockedID: target, createdAt: clock.now()))
        return try Response.json(record.contract, status: created ? .created : .ok)
    }

    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let page = try PageRequest<TimePosition>(request: request)
        let records = try await store.blocks(of: user.userID, after: page.position, limit: page.limit + 1)
        return try Response.json(
            Page(records, limit: page.limit, item: \.contract) {
                TimePosition(createdAt: $0.createdAt, id: $0.blockedID)
            })
    }

    @Sendable func remove(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let target = try ObjectID.path(context.parameters.require("userId"), "Block")
        guard try await store.unblock(blocker: user.userID, blocked: target) else {
            throw ServiceError.notFound("Block")
        }
        return Response(status: .noContent)
    }
}
