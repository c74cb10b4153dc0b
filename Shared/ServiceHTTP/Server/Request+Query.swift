import Contracts
import Hummingbird

extension Request {
    /// The query parameter `name` as a finite decimal number (``StrictNumbers/decimal(_:)``);
    /// nil when it is absent. Anything else, hex and `+1` too, is a 400 naming the parameter.
    public func queryNumber(_ name: String) throws -> Double? {
        guard let text = try queryValue(name) else { return nil }
        guard let value = StrictNumbers.decimal(text) else {
            throw ServiceError.validation("`\(name)` must be a number.")
        }
        return value
    }

    /// The one value of the query parameter `name` (nil when absent). Given twice it is a 400: a
    /// repeated `lat` whose first value alone were read would let a wrong request through.
    public func queryValue(_ name: String) throws -> Substring? {
        let values = uri.queryParameters.getAll(name)
        guard values.count <= 1 else { throw ServiceError.validation("`\(name)` is given more than once.") }
        return values.first.map { $0[...] }
    }

    /// `ids` of a batch lookup (`?ids=a,b,c`, or `ids` given more than once): 1 to `maximum`
    /// object ids, in the order given, each once. None, more than `maximum` or one that is not
    /// an id is a 400.
    public func queryIDs(_ name: String = "ids", maximum: Int = 100) throws -> [String] {
        let texts = uri.queryParameters.getAll(name).flatMap { $0.split(separator: ",") }
        guard !texts.isEmpty else { throw ServiceError.validation("`\(name)` is required: ids separated by commas.") }
        guard texts.count <= maximum else { throw ServiceError.validation("At most \(maximum) `\(name)` at a time.") }
        var seen = Set<String>()
        return try texts.compactMap { text in
            guard let id = ObjectID.canonical(String(text)) else {
                throw ServiceError.validation("`\(name)` holds \(String(text.prefix(40))), which is not an id.")
            }
            return seen.insert(id).inserted ? id : nil
        }
    }

    /// The query parameter `name` as a finite number; absent, it is a 400 saying it is required.
    public func requiredQueryNumber(_ name: String) throws -> Double {
        guard let value = try queryNumber(name) else { throw ServiceError.validation("`\(name)` is required.") }
        return value
    }

    /// `lat` and `lon` of the query as a point: nil when neither is given, a 400 when only one
    /// is or either is not a coordinate.
    public func queryPoint() throws -> Coordinate? {
        let latitude = try queryNumber("lat")
        let longitude = try queryNumber("lon")
        if latitude == nil, longitude == nil { return nil }
        return try Coordinate(latitude: requiredQueryNumber("lat"), longitude: requiredQueryNumber("lon"))
    }

    /// `minLat`, `minLon`, `maxLat`, `maxLon` as a box: every one required, latitudes from -90
    /// to 90 with `minLat <= maxLat`, longitudes from -180 to 180 (`minLon > maxLon` crosses
    /// the antimeridian).
    public func queryBox() throws -> MapBox {
        let box = MapBox(
            minLatitude: try requiredQueryNumber("minLat"), minLongitude: try requiredQueryNumber("minLon"),
            maxLatitude: try requiredQueryNumber("maxLat"), maxLongitude: try requiredQueryNumber("maxLon"))
        _ = try Coordinate(latitude: box.minLatitude, longitude: box.minLongitude)
        _ = try Coordinate(latitude: box.maxLatitude, longitude: box.maxLongitude)
        guard box.minLatitude <= box.maxLatitude else {
            throw ServiceError.validation("`minLat` must not be above `maxLat`.")
        }
        return box
    }

    /// `lat`, `lon` and `radius_m` (1 to `maxRadius` metres, `defaultRadius` when left out) as a
    /// search circle: nil when none is given; a 400 when the radius comes without its point or
    /// anything is out of range.
    public func queryCircle(defaultRadius: Double?, maxRadius: Int) throws -> (center: Coordinate, radius: Double)? {
        let center = try queryPoint()
        let radius = try queryNumber("radius_m")
        guard let center else {
            if radius != nil { throw ServiceError.validation("`radius_m` goes with `lat` and `lon`.") }
            return nil
        }
        guard let radius = radius ?? defaultRadius else { throw ServiceError.validation("`radius_m` is required.") }
        guard radius >= 1, radius <= Double(maxRadius) else {
            throw ServiceError.validation("`radius_m` must be from 1 to \(maxRadius).")
        }
        return (center, radius)
    }

    /// `?status=open|all` (default `open`): whether only open ones are asked for (incidents,
    /// duress alerts); anything else is a 400.
    public func openOnly() throws -> Bool {
        switch uri.queryParameters.get("status") ?? "open" {
        case "open": return true
        case "all": return false
        default: throw ServiceError.validation("`status` must be open or all.")
        }
    }
}
