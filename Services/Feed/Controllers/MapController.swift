import Contracts
import Foundation
import Hummingbird
import MapClustering
import ServiceHTTP

/// The map: `GET /v1/feed/map/clusters?minLat=&minLon=&maxLat=&maxLon=&zoom=` (the box as
/// clusters and single posts at a zoom level, from the index ``MapIndexBuilder`` keeps) and
/// `GET /v1/feed/map/posts?minLat=&minLon=&maxLat=&maxLon=&limit=&cursor=` (every post in the
/// box, newest first, paged). A box may cross the antimeridian (`minLon > maxLon`). A clusters
/// answer's `Server-Timing` says how long the index query itself took (`index;dur=`, ms).
struct MapController: Sendable {
    let store: FeedStore
    let index: MapIndexBuilder
    let clock: any WallClock

    /// Single posts a clusters answer carries at most.
    static let postLimit = 500

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.get("/v1/feed/map/clusters", use: clusters)
        routes.authenticated.get("/v1/feed/map/posts", use: posts)
    }

    @Sendable func clusters(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let box = try request.queryBox()
        guard let zoomText = try request.queryValue("zoom"), let zoom = Int(zoomText), (0...20).contains(zoom) else {
            throw ServiceError.validation("`zoom` must be a whole number from 0 to 20.")
        }
        guard let built = index.built else {
            throw ServiceError(.serviceUnavailable, "The map is still being indexed; try again in a moment.")
        }
        let started = ContinuousClock.now
        let found = built.clusters.entries(
            minLatitude: box.minLatitude, minLongitude: box.minLongitude, maxLatitude: box.maxLatitude,
            maxLongitude: box.maxLongitude, zoom: zoom)
        let queried = ContinuousClock.now - started
        let clusters = found.filter(\.isCluster).map { entry in
            MapCluster(
                id: entry.id, count: entry.count, latitude: entry.latitude, longitude: entry.longitude,
                box: MapBox(
                    minLatitude: entry.minLatitude, minLongitude: entry.minLongitude, maxLatitude: entry.maxLatitude,
                    maxLongitude: entry.maxLongitude),
                expansionZoom: entry.expansionZoom ?? zoom + 1, postId: entry.postID)
        }
        let posts = try await store.mapPosts(
            ids: found.filter { !$0.isCluster }.map(\.postID), viewer: user.userID, limit: Self.postLimit,
            now: clock.now())
        var response = Response.json(
            encoded: try MapClustersJSON.encode(
                MapClusters(zoom: zoom, clusters: clusters, posts: posts, indexedAt: built.at)))
        response.headers[.serverTiming] = "index;dur=" + String(format: "%.3f", queried.inMilliseconds)
        return response
    }

    @Sendable func posts(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let box = try request.queryBox()
        let page = try PageRequest<TimePosition>(request: request)
        let found = try await store.postsInBox(
            box, viewer: user.userID, after: page.position, limit: page.limit, now: clock.now())
        return try Response.json(
            Page(found, limit: page.limit, item: \.post) {
                TimePosition(createdAt: $0.record.createdAt, id: $0.record.id)
            })
    }
}
