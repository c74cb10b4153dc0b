import Foundation

/// A point on Earth, validated (feed's nearby posts, alerts' nearby duress alerts).
public struct Coordinate: Sendable, Equatable {
    public let latitude: Double
    public let longitude: Double

    public init(latitude: Double, longitude: Double) throws {
        guard latitude.isFinite, (-90...90).contains(latitude) else {
            throw ServiceError.validation("`latitude` must be a number from -90 to 90.")
        }
        guard longitude.isFinite, (-180...180).contains(longitude) else {
            throw ServiceError.validation("`longitude` must be a number from -180 to 180.")
        }
        self.latitude = latitude
        self.longitude = longitude
    }

    public static let earthRadius = 6_371_008.8

    /// Great-circle distance in metres (haversine).
    public func distance(to other: Coordinate) -> Double {
        let (φ1, φ2) = (latitude * .pi / 180, other.latitude * .pi / 180)
        let Δφ = φ2 - φ1
        let Δλ = (other.longitude - longitude) * .pi / 180
        let a = sin(Δφ / 2) * sin(Δφ / 2) + cos(φ1) * cos(φ2) * sin(Δλ / 2) * sin(Δλ / 2)
        return 2 * Self.earthRadius * asin(min(1, sqrt(a)))
    }

    /// The points within `radius` metres of this one (see ``Circle``).
    public func circle(radius: Double) -> Circle {
        Circle(center: self, radius: radius)
    }

    /// A latitude/longitude box that contains every point within `radius` metres, for an
    /// index range scan; the exact distance is checked afterwards. `longitudes` is nil when
    /// the box would cross the antimeridian or a pole (every longitude qualifies then).
    public func boundingBox(radius: Double) -> (latitudes: ClosedRange<Double>, longitudes: ClosedRange<Double>?) {
        let Δlat = radius / Self.earthRadius * 180 / .pi
        let minLat = max(-90, latitude - Δlat)
        let maxLat = min(90, latitude + Δlat)
        let cosine = cos(max(abs(minLat), abs(maxLat)) * .pi / 180)
        guard cosine > 1e-9 else { return (minLat...maxLat, nil) }
        let Δlon = Δlat / cosine
        guard longitude - Δlon >= -180, longitude + Δlon <= 180 else { return (minLat...maxLat, nil) }
        return (minLat...maxLat, (longitude - Δlon)...(longitude + Δlon))
    }
}

/// The points within `radius` metres of `center`, as ``Coordinate/distance(to:)`` measures
/// them, for a scan that checks many points against one circle (ranked nearby reads a
/// thousand): the center's cosine and the radius's bound are worked out once, and a point is
/// compared before the arcsine, which never changes the answer (it only grows).
public struct Circle: Sendable {
    public let center: Coordinate
    public let radius: Double
    private let latitude: Double
    private let cosine: Double
    /// The haversine's `a` at `radius`; nil when the circle covers the whole Earth.
    private let bound: Double?

    public init(center: Coordinate, radius: Double) {
        self.center = center
        self.radius = radius
        latitude = center.latitude * .pi / 180
        cosine = cos(latitude)
        let angle = radius / (2 * Coordinate.earthRadius)
        bound = angle < .pi / 2 ? sin(angle) * sin(angle) : nil
    }

    public func contains(_ point: Coordinate) -> Bool {
        guard let bound else { return true }
        let φ2 = point.latitude * .pi / 180
        let Δφ = φ2 - latitude
        let Δλ = (point.longitude - center.longitude) * .pi / 180
        let (latitudes, longitudes) = (sin(Δφ / 2), sin(Δλ / 2))
        return latitudes * latitudes + cosine * cos(φ2) * longitudes * longitudes <= bound
    }
}
