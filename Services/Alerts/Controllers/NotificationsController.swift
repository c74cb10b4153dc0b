import Contracts
import Foundation
import Hummingbird
import ServiceKit

/// The notification centre: list, unread count, mark one or all read.
struct NotificationsController: Sendable {
    let store: AlertsStore
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/notifications", use: list)
        routes.authenticated.get("/v1/notifications/unread-count", use: unreadCount)
        routes.authenticated.post("/v1/notifications/read-all", use: readAll)
        routes.authenticated.post("/v1/notifications/:id/read", use: read)
    }

    /// Newest first, paged.
    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let page = try PageRequest<TimePosition>(request: request)
        let records = try await store.notifications(of: user.userID, after: page.position, limit: page.limit + 1)
        return try Response.json(
            Page(records, limit: page.limit, item: \.contract) { TimePosition(createdAt: $0.createdAt, id: $0.id) })
    }

    @Sendable func unreadCount(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        return try Response.json(UnreadCount(count: try await store.unreadCount(of: user.userID)))
    }

    @Sendable func read(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Notification")
        guard let record = try await store.markRead(id: id, of: user.userID, at: clock.now()) else {
            throw ServiceError.notFound("Notification")
        }
        return try Response.json(record.contract)
    }

    @Sendable func readAll(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        return try Response.json(MarkedRead(updated: try await store.markAllRead(of: user.userID, at: clock.now())))
    }
}
