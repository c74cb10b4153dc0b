import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// The notification centre: list, unread count, mark one, some or all read, delete one.
struct NotificationsController: Sendable {
    let store: AlertsStore
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/notifications", use: list)
        routes.authenticated.get("/v1/notifications/unread-count", use: unreadCount)
        routes.authenticatedWhileSuspended.post("/v1/notifications/read-all", use: readAll)
        routes.authenticatedWhileSuspended.post("/v1/notifications/:id/read", use: read)
        routes.authenticatedWhileSuspended.post("/v1/notifications/read", use: readMany)
        routes.authenticatedWhileSuspended.delete("/v1/notifications/:id", use: remove)
    }

    /// Newest first, paged.
    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let page = try PageRequest<TimePosition>(request: request)
        let records = try await store.notifications(of: user.userID, after: page.position, limit: page.limit + 1)
        return try Response.json(
            Page(records, limit: page.limit, item: { $0 }) { TimePosition(createdAt: $0.createdAt, id: $0.id) })
    }

    @Sendable func unreadCount(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        return try Response.json(UnreadCount(count: try await store.unreadCount(of: user.userID)))
    }

    @Sendable func read(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Notification")
        guard let notification = try await store.markRead(id: id, of: user.userID, at: clock.now()) else {
            throw ServiceError.notFound("Notification")
        }
        return try Response.json(notification)
    }

    /// `{"ids": [...]}`: marks those of the user's notifications read (others' ids and unknown
    /// ids are ignored); answers how many changed.
    @Sendable func readMany(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let body = try await request.decodeJSON(as: MarkRead.self, context: context, limit: 64 << 10)
        guard body.ids.count <= 500 else { throw ServiceError.validation("At most 500 `ids` at a time.") }
        let ids = body.ids.compactMap(ObjectID.canonical)
        return try Response.json(
            MarkedRead(updated: try await store.markRead(ids: ids, of: user.userID, at: clock.now())))
    }

    /// 204; another user's notification is a 404.
    @Sendable func remove(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Notification")
        guard try await store.deleteNotification(id: id, of: user.userID) else {
            throw ServiceError.notFound("Notification")
        }
        return Response(status: .noContent)
    }

    @Sendable func readAll(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        return try Response.json(MarkedRead(updated: try await store.markAllRead(of: user.userID, at: clock.now())))
    }
}
