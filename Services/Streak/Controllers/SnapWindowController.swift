import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// `GET /v1/snaps/window` (today's snap window, drawn on first look) and `PUT
/// /v1/snaps/window` (the earliest hour it may open, the user's zone).
struct SnapWindowController: Sendable {
    let store: StreakStore
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/snaps/window", use: show)
        routes.authenticated.put("/v1/snaps/window", use: update)
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let now = clock.now()
        let (window, member) = try await store.window(of: user.userID, at: now)
        return try Response.json(window.contract(member: member, enforced: store.settings.windowsEnforced, at: now))
    }

    @Sendable func update(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let body = try await request.decodeJSON(as: SnapWindowSettings.self, context: context)
        guard (0...23).contains(body.earliestHour) else {
            throw ServiceError.validation("`earliestHour` is an hour of the day, 0 to 23.")
        }
        let zone = try body.timeZone.map(LocalDay.zone(named:))
        let now = clock.now()
        let (window, member) = try await store.setWindow(
            earliestHour: body.earliestHour, zone: zone, of: user.userID, at: now)
        return try Response.json(window.contract(member: member, enforced: store.settings.windowsEnforced, at: now))
    }
}

extension SnapWindowRecord {
    func contract(member: MemberRecord, enforced: Bool, at now: Date) -> SnapWindow {
        SnapWindow(
            date: localDate, timeZone: timeZone, opensAt: opensAt, closesAt: closesAt,
            graceMinutes: Int(SnapWindowRule.grace / 60), acceptingSnaps: !enforced || rule.accepts(now),
            open: rule.isOpen(at: now), enforced: enforced, earliestHour: member.earliestHour)
    }
}
