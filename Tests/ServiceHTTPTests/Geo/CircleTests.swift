import Foundation
import PropertyBased
import Testing

@testable import ServiceHTTP

/// A circle's check agrees with the distance it stands in for.
@Suite struct CircleTests {
    @Test func aPointIsInTheCircleExactlyWhenItsDistanceIsWithinTheRadius() async throws {
        await propertyCheck(
            count: 2000, input: Gen.double(in: -89...89), Gen.double(in: -179...179), Gen.double(in: -0.2...0.2),
            Gen.double(in: -0.2...0.2), Gen.double(in: 1...30_000)
        ) { latitude, longitude, north, east, radius in
            guard let center = try? Coordinate(latitude: latitude, longitude: longitude),
                let point = try? Coordinate(
                    latitude: min(90, max(-90, latitude + north)), longitude: min(180, max(-180, longitude + east)))
            else { return }
            let distance = center.distance(to: point)
            // A point a rounding error from the edge may fall either way.
            guard abs(distance - radius) > radius * 1e-9 else { return }
            #expect(
                center.circle(radius: radius).contains(point) == (distance <= radius),
                "\(center) \(point) \(distance) \(radius)")
        }
    }

    @Test func theEdgeTheFarSideAndTheWholeEarth() throws {
        let paris = try Coordinate(latitude: 48.8566, longitude: 2.3522)
        let lyon = try Coordinate(latitude: 45.76, longitude: 4.84)
        let distance = paris.distance(to: lyon)
        #expect(paris.circle(radius: distance * 1.000_001).contains(lyon))
        #expect(!paris.circle(radius: distance * 0.999_999).contains(lyon))
        #expect(paris.circle(radius: 0).contains(paris))
        let antipode = try Coordinate(latitude: -48.8566, longitude: 2.3522 - 180)
        #expect(!paris.circle(radius: 19_000_000).contains(antipode))
        #expect(paris.circle(radius: 20_100_000).contains(antipode))
        #expect(paris.circle(radius: 1e12).contains(antipode))
    }
}
