import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// One user's blocks (`/v1/blocks`) or mutes of people (`/v1/mutes/users`): `POST` with
/// `{"userId":…}`, `GET` (paged, newest first), `DELETE …/{userId}`. Other services learn of
/// each change through the record's events and keep their own copies.
struct RelationsController<Record: UserRelationRecord>: Sendable {
    let store: ModerationStore
    let users: Lookup<UserSummary>
    let clock: any WallClock
    /// `/v1/blocks`, `/v1/mutes/users`.
    let path: String
    /// What one is called in messages: "block", "mute".
    let noun: String
    /// How many one user may have.
    let limit: Int

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticatedWhileSuspended.post(RouterPath(path), use: create)
        routes.authenticated.get(RouterPath(path), use: list)
        routes.authenticatedWhileSuspended.delete(RouterPath(path + "/:userId"), use: remove)
    }

    /// 201 for a new one, 200 with the same body when it already stood; an unknown user is 404.
    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let body = try await request.decodeJSON(as: BlockCreate.self, context: context)
        let target = try ObjectID.field(body.userId, "userId")
        guard target != user.userID else { throw ServiceError.validation("You cannot \(noun) yourself.") }
        guard try await users.find(target) != nil else { throw ServiceError.notFound("User") }
        let (record, created) = try await store.relate(
            Record(actorId: user.userID, targetId: target, createdAt: clock.now()), limit: limit)
        return try Response.json(record.contract, status: created ? .created : .ok)
    }

    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let page = try PageRequest<TimePosition>(request: request)
        let records = try await store.relations(
            Record.self, of: user.userID, after: page.position, limit: page.limit + 1)
        return try Response.json(
            Page(records, limit: page.limit, item: \.contract) {
                TimePosition(createdAt: $0.createdAt, id: $0.targetId)
            })
    }

    @Sendable func remove(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let noun = noun.prefix(1).uppercased() + noun.dropFirst()
        let target = try ObjectID.path(context.parameters.require("userId"), noun)
        guard try await store.unrelate(Record.self, actor: user.userID, target: target) else {
            throw ServiceError.notFound(noun)
        }
        return Response(status: .noContent)
    }
}
