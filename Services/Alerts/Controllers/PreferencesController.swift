import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// `GET/PUT /v1/me/notification-preferences`: which notification types are pushed, and quiet
/// hours.
struct PreferencesController: Sendable {
    let store: AlertsStore
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/me/notification-preferences", use: show)
        routes.authenticatedWhileSuspended.put("/v1/me/notification-preferences", use: update)
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        return try Response.json(Self.contract(try await store.preferences(of: user.userID)))
    }

    /// Changes the types named, and quiet hours when named; anything invalid is a 400 and
    /// changes nothing.
    @Sendable func update(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let body = try await request.decodeJSON(as: NotificationPreferences.self, context: context, limit: 16 << 10)
        var changes: [NotificationType: Bool] = [:]
        for (name, push) in body.push {
            guard let type = NotificationType(rawValue: name) else {
                throw ServiceError.validation("`push.\(name)` is not a notification type.")
            }
            if let governing = NotificationCatalog.kind(of: type).governedBy {
                throw ServiceError.validation("`push.\(name)` follows `\(governing.rawValue)`: set that one.")
            }
            guard push || !NotificationCatalog.kind(of: type).critical else {
                throw ServiceError.validation("`push.\(name)` is critical: it cannot be turned off.")
            }
            changes[type] = push
        }
        let quietHours: QuietHours?? = body.namesQuietHours ? .some(try body.quietHours.map(QuietHours.init)) : .none
        let preferences = try await store.setPreferences(
            push: changes, quietHours: quietHours, of: user.userID, at: clock.now())
        return try Response.json(Self.contract(preferences))
    }

    static func contract(_ preferences: AlertsStore.Preferences) -> NotificationPreferences {
        NotificationPreferences(
            push: Dictionary(uniqueKeysWithValues: preferences.push.map { ($0.key.rawValue, $0.value) }),
            quietHours: preferences.quietHours?.settings, namesQuietHours: true)
    }
}
