import Contracts
import Foundation
import Hummingbird
import ServiceKit

/// `POST /v1/blocks`, `GET /v1/blocks`, `DELETE /v1/blocks/{userId}`. Feed and streak learn
/// of blocks through events and keep their own copies.
struct BlocksController: Sendable {
    let store: ModerationStore
    let users: Lookup<UserSummary>
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.post("/v1/blocks", use: create)
        routes.authenticated.get("/v1/blocks", use: list)
        routes.authenticated.delete("/v1/blocks/:userId", use: remove)
    }

    /// 201 for a new block, 200 with the same body when it already stood.
    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let body = try await request.decodeJSON(as: BlockCreate.self, context: context)
        let target = try ObjectID.field(body.userId, "userId")
        guard target != user.userID else { throw ServiceError.validation("You cannot block yourself.") }
        guard try await users.find(target) != nil else { throw ServiceError.notFound("User") }
        let (record, created) = try await store.block(
            BlockRecord(blockerId: user.userID, blockedId: target, createdAt: clock.now()))
        return try Response.json(record.contract, status: created ? .created : .ok)
    }

    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let page = try PageRequest<TimePosition>(request: request)
        let records = try await store.blocks(of: user.userID, after: page.position, limit: page.limit + 1)
        return try Response.json(
            Page(records, limit: page.limit, item: \.contract) {
                TimePosition(createdAt: $0.createdAt, id: $0.blockedId)
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
