import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// `GET /v1/streaks/feed` (the friend feed: each streak with today's two snaps, or who is
/// still awaited), `GET /v1/streaks/{id}/photos` (a streak's photo history, newest day
/// first) and the heatmaps: `GET /v1/streaks/{id}/calendar`, `GET /v1/streaks/calendar`. A friend's snap shows once the reader has snapped for the same day; its media is
/// then readable by the reader (`GET /v1/media/{id}/url` gives a presigned GET URL).
struct StreakDaysController: Sendable {
    let store: StreakStore
    let clock: any WallClock

    /// Where a history page starts: before this day.
    struct DayPosition: Codable, Sendable {
        var before: String
    }

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/streaks/feed", use: feed)
        routes.authenticated.get("/v1/streaks/:id/photos", use: photos)
        routes.authenticated.get("/v1/streaks/:id/calendar", use: streakCalendar)
        routes.authenticated.get("/v1/streaks/calendar", use: userCalendar)
    }

    /// `?days=` 1…366 (default 90): one streak's heatmap.
    @Sendable func streakCalendar(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Streak")
        let days = try Self.days(request, default: 90)
        guard let calendar = try await store.calendar(of: id, viewer: user.userID, days: days, at: clock.now()) else {
            throw ServiceError.notFound("Streak")
        }
        return try Response.json(calendar)
    }

    /// `?days=` 1…366 (default 365): the reader's snaps across all their streaks.
    @Sendable func userCalendar(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let days = try Self.days(request, default: 365)
        return try Response.json(try await store.calendar(of: user.userID, days: days, at: clock.now()))
    }

    static func days(_ request: Request, default value: Int) throws -> Int {
        guard let text = request.uri.queryParameters["days"] else { return value }
        guard let days = Int(String(text)), (1...366).contains(days) else {
            throw ServiceError.validation("`days` must be a whole number from 1 to 366.")
        }
        return days
    }

    @Sendable func feed(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let page = try PageRequest<TimePosition>(request: request)
        let items = try await store.feed(of: user.userID, after: page.position, limit: page.limit + 1, at: clock.now())
        return try Response.json(
            Page(items, limit: page.limit) {
                StreakFeedItem(streak: $0.standing.contract(viewer: user.userID), today: $0.day)
            } position: {
                TimePosition(createdAt: $0.standing.record.createdAt, id: $0.standing.record.id)
            })
    }

    @Sendable func photos(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Streak")
        let page = try PageRequest<DayPosition>(request: request, defaultLimit: 14, maximum: 60)
        if let before = page.position?.before, LocalDay(before) == nil {
            throw ServiceError(.invalidCursor, "The cursor is not valid for this list; start again without it.")
        }
        guard
            let history = try await store.history(
                of: id, viewer: user.userID, before: page.position?.before, limit: page.limit + 1, at: clock.now())
        else { throw ServiceError.notFound("Streak") }
        return try Response.json(
            Page(history.days, limit: page.limit, item: { $0 }) { DayPosition(before: $0.date) })
    }
}
