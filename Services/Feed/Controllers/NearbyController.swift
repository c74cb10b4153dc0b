import Contracts
import Foundation
import Hummingbird
import ServiceKit

/// `GET /v1/feed/nearby?lat=&lon=&radius_m=&limit=&cursor=`: posts around a point, newest
/// first, without hidden posts, posts between users who blocked each other or words the reader muted.
struct NearbyController: Sendable {
    let store: FeedStore
    let maxRadius: Int
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/feed/nearby", use: nearby)
    }

    @Sendable func nearby(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        guard let (center, radius) = try request.queryCircle(defaultRadius: nil, maxRadius: maxRadius) else {
            throw ServiceError.validation("`lat` is required.")
        }
        let page = try PageRequest<TimePosition>(request: request)
        let found = try await store.nearby(
            center: center, radius: radius, viewer: user.userID, after: page.position, limit: page.limit,
            now: clock.now())
        return try Response.json(
            Page(found, limit: page.limit, item: \.post) {
                TimePosition(createdAt: $0.record.createdAt, id: $0.record.id)
            })
    }
}
