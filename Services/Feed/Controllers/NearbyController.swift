import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// `GET /v1/feed/nearby?lat=&lon=&radius_m=&sort=newest|ranked&limit=&cursor=`: posts around a
/// point without hidden posts, posts between users who blocked each other or words the reader
/// muted. `newest` (the default) pages by time; `ranked` orders the circle's newest
/// ``rankedCandidates`` by ``TimeDecayRanking`` as of the first page and pages through that
/// ranking (kept by ``NearbyRankings``), so votes between pages neither repeat nor skip a post.
/// The ranking is of every post in the circle; a page skips what its reader may not see and
/// reads on until it is full.
struct NearbyController: Sendable {
    let store: FeedStore
    let maxRadius: Int
    let rankings: NearbyRankings
    let clock: any WallClock

    /// The most posts a ranked list orders: the newest this many in the circle.
    static let rankedCandidates = 1000

    /// Where a ranked page starts: the ranking's time and how many came before.
    struct RankedPosition: Codable, Sendable {
        var asOf: Date
        var offset: Int
    }

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/feed/nearby", use: nearby)
    }

    @Sendable func nearby(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        guard let (center, radius) = try request.queryCircle(defaultRadius: nil, maxRadius: maxRadius) else {
            throw ServiceError.validation("`lat` is required.")
        }
        switch try request.queryValue("sort") {
        case nil, "newest":
            let page = try PageRequest<TimePosition>(request: request)
            let found = try await store.nearby(
                center: center, radius: radius, viewer: user.userID, after: page.position, limit: page.limit,
                now: clock.now())
            return try Response.json(
                Page(found, limit: page.limit, item: \.post) {
                    TimePosition(createdAt: $0.record.createdAt, id: $0.record.id)
                })
        case "ranked":
            return try await ranked(request, viewer: user.userID, center: center, radius: radius)
        default:
            throw ServiceError.validation("`sort` is `newest` or `ranked`.")
        }
    }

    /// One page of the circle's ranking as of its first page. Later pages read that ranking
    /// (made again, as of its time, if it is no longer kept), leaving out what was hidden,
    /// deleted, muted or blocked since.
    private func ranked(
        _ request: Request, viewer: String, center: Coordinate, radius: Double
    ) async throws -> Response {
        let page = try PageRequest<RankedPosition>(request: request)
        let position = page.position ?? RankedPosition(asOf: clock.now(), offset: 0)
        let key = NearbyRankingKey(
            viewer: viewer, latitude: center.latitude, longitude: center.longitude, radius: radius)
        let ranking = try await rankings.ranking(
            for: key, asOf: JSONCoding.milliseconds(position.asOf), fresh: page.position == nil
        ) {
            let candidates = try await store.nearbyCandidates(
                center: center, radius: radius, limit: Self.rankedCandidates)
            return TimeDecayRanking.rank(candidates, now: position.asOf)
        }
        // Each read asks for no more than the page still needs, so the offset moves past
        // exactly what the page showed or skipped.
        var posts: [Post] = []
        var offset = min(position.offset, ranking.count)
        while posts.count < page.limit, offset < ranking.count {
            let ids = Array(ranking[offset..<min(ranking.count, offset + page.limit - posts.count)])
            posts += try await store.posts(ids: ids, viewer: viewer, now: clock.now())
            offset += ids.count
        }
        let next = RankedPosition(asOf: position.asOf, offset: offset)
        return try Response.json(
            Page(items: posts, nextCursor: next.offset < ranking.count ? Cursor.encode(next) : nil))
    }
}
