import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// `GET /v1/prompts/today` (the day's prompt: the operator's, or the reader's own), and a Pro
/// user's own prompts: `GET /v1/prompts/custom`, `PUT` and `DELETE /v1/prompts/custom/{date}`.
struct PromptsController: Sendable {
    let store: StreakStore
    let clock: any WallClock

    /// How far ahead a custom prompt may be set, in days.
    static let maxDaysAhead = 365

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/prompts/today", use: today)
        routes.authenticated.get("/v1/prompts/custom", use: list)
        routes.authenticated.put("/v1/prompts/custom/:date", use: set)
        routes.authenticated.delete("/v1/prompts/custom/:date", use: remove)
    }

    /// `?timeZone=` (default: the zone of the reader's latest snap or window settings, else UTC).
    @Sendable func today(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let zone = try request.uri.queryParameters["timeZone"].map { try LocalDay.zone(named: String($0)) }
        return try Response.json(try await store.todaysPrompt(of: user.userID, zone: zone, at: clock.now()))
    }

    @Sendable func list(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let today = try await store.today(of: user.userID, at: clock.now())
        return try Response.json(
            Page(items: try await store.customPrompts(of: user.userID, from: today.previous), nextCursor: nil))
    }

    /// Pro only (402 `PREMIUM_REQUIRED`): today or a day up to a year ahead.
    @Sendable func set(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let body = try await request.decodeJSON(as: CustomPromptSet.self, context: context)
        let text = body.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...PromptBook.maxTextLength).contains(text.unicodeScalars.count) else {
            throw ServiceError.validation("`text` is 1 to \(PromptBook.maxTextLength) characters.")
        }
        let emoji = body.emoji?.trimmingCharacters(in: .whitespaces) ?? "📸"
        guard (1...PromptBook.maxEmojiLength).contains(emoji.unicodeScalars.count) else {
            throw ServiceError.validation("`emoji` is 1 to \(PromptBook.maxEmojiLength) characters.")
        }
        let now = clock.now()
        let day = try await date(context, of: user.userID, at: now)
        // Checked last: a request that is wrong anyway says what is wrong with it.
        guard user.premium else {
            throw ServiceError(.premiumRequired, "Custom prompts come with a subscription.")
        }
        let record = CustomPromptRecord(
            userId: user.userID, localDate: day.description, text: text, emoji: emoji, createdAt: now)
        return try Response.json(try await store.setCustomPrompt(record))
    }

    @Sendable func remove(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        guard let day = LocalDay(try context.parameters.require("date")),
            try await store.deleteCustomPrompt(of: user.userID, on: day)
        else { throw ServiceError.notFound("Custom prompt") }
        return Response(status: .noContent)
    }

    /// The `{date}` of the path: `YYYY-MM-DD`, from the reader's yesterday (their zone may be
    /// behind streak's) to a year ahead.
    private func date(_ context: ServiceRequestContext, of user: String, at now: Date) async throws -> LocalDay {
        let text = try context.parameters.require("date")
        let today = try await store.today(of: user, at: now)
        guard let day = LocalDay(text), day.description == text,
            (today.previous...today.adding(days: Self.maxDaysAhead)).contains(day)
        else {
            throw ServiceError.validation(
                "`date` is a day (`YYYY-MM-DD`) from today to \(Self.maxDaysAhead) days ahead.")
        }
        return day
    }
}
