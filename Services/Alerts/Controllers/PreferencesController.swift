import Contracts
import Foundation
import Hummingbird
import ServiceKit

/// `GET/PUT /v1/me/notification-preferences`: which notification types are pushed.
struct PreferencesController: Sendable {
    let store: AlertsStore
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/me/notification-preferences", use: show)
        routes.authenticated.put("/v1/me/notification-preferences", use: update)
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        return try Response.json(Self.contract(try await store.pushPreferences(of: user.userID)))
    }

    /// Changes the types named; an unknown type is a 400 and changes nothing.
    @Sendable func update(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let body = try await request.decodeJSON(as: NotificationPreferences.self, context: context, limit: 16 << 10)
        var changes: [NotificationType: Bool] = [:]
        for (name, push) in body.push {
            guard let type = NotificationType(rawValue: name) else {
                throw ServiceError.validation("`push.\(name)` is not a notification type.")
            }
            changes[type] = push
        }
        let preferences = try await store.setPushPreferences(changes, of: user.userID, at: clock.now())
        return try Response.json(Self.contract(preferences))
    }

    static func contract(_ preferences: [NotificationType: Bool]) -> NotificationPreferences {
        NotificationPreferences(push: Dictionary(uniqueKeysWithValues: preferences.map { ($0.key.rawValue, $0.value) }))
    }
}
