import Contracts
import Foundation
import Hummingbird
import ServiceHTTP
import ServiceStore

/// `GET /v1/search/posts?q=`: posts by their words, best match first.
struct SearchController: Sendable {
    let store: FeedStore
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/search/posts", use: posts)
    }

    /// `q` is 2 to 100 characters with a letter or digit; every word must match a word of the
    /// post (the last one may be its start), whatever the case and accents.
    @Sendable func posts(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let text = (request.uri.queryParameters["q"].map(String.init) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let words = Array(MutedWords.words(text).prefix(10))
        guard (2...100).contains(text.unicodeScalars.count), !words.isEmpty else {
            throw ServiceError.validation("`q` must be 2 to 100 characters with a letter or a digit.")
        }
        let page = try PageRequest<OffsetPosition>(request: request)
        let offset = page.position?.offset ?? 0
        guard offset <= 1000 else { throw ServiceError(.invalidCursor, "Search pages end after 1,000 results.") }
        let (posts, more) = try await store.search(
            words: words, viewer: user.userID, offset: offset, limit: page.limit, now: clock.now())
        return try Response.json(
            Page(items: posts, nextCursor: more ? Cursor.encode(OffsetPosition(offset: offset + page.limit)) : nil))
    }
}
