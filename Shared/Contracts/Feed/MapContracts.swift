import Foundation

/// A latitude/longitude box; `minLongitude > maxLongitude` crosses the antimeridian.
public struct MapBox: Codable, Sendable, Equatable {
    public var minLatitude: Double
    public var minLongitude: Double
    public var maxLatitude: Double
    public var maxLongitude: Double

    public init(minLatitude: Double, minLongitude: Double, maxLatitude: Double, maxLongitude: Double) {
        self.minLatitude = minLatitude
        self.minLongitude = minLongitude
        self.maxLatitude = maxLatitude
        self.maxLongitude = maxLongitude
    }
}

/// Several posts shown as one marker at a zoom level.
public struct MapCluster: Codable, Sendable, Equatable {
    /// Stable while the cluster keeps its first post: `c<zoom formed>-<post id>`.
    public var id: String
    public var count: Int
    /// The weighted centroid of its posts.
    public var latitude: Double
    public var longitude: Double
    /// The extent of its posts.
    public var box: MapBox
    /// Zoom in to this level and the cluster shows as several markers.
    public var expansionZoom: Int
    /// Its first post, as a representative (the viewer may not be able to open it).
    public var postId: String

    public init(
        id: String, count: Int, latitude: Double, longitude: Double, box: MapBox, expansionZoom: Int, postId: String
    ) {
        self.id = id
        self.count = count
        self.latitude = latitude
        self.longitude = longitude
        self.box = box
        self.expansionZoom = expansionZoom
        self.postId = postId
    }
}

/// `GET /v1/feed/map/clusters`: a box at a zoom level, as clusters and single posts.
public struct MapClusters: Codable, Sendable {
    public var zoom: Int
    public var clusters: [MapCluster]
    /// Posts shown on their own (at most 500, newest first), as the viewer may see them.
    public var posts: [Post]
    /// When the cluster index was built: posts, hides and deletions after it show within
    /// `feed.map.rebuildSeconds`.
    public var indexedAt: Date

    public init(zoom: Int, clusters: [MapCluster], posts: [Post], indexedAt: Date) {
        self.zoom = zoom
        self.clusters = clusters
        self.posts = posts
        self.indexedAt = indexedAt
    }
}
