import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import Testing

@testable import ServiceHTTP

/// Query parameters as the services read them: one value each, numbers that are numbers, and
/// a search circle that is whole or absent.
@Suite struct QueryParameterTests {
    func request(_ query: String) -> Request {
        Request(
            head: .init(method: .get, scheme: "http", authority: "x", path: "/items?\(query)"),
            body: .init(buffer: .init()))
    }

    func refused(_ query: String, _ read: (Request) throws -> Any?) -> String? {
        do {
            _ = try read(request(query))
            return nil
        } catch let error as ServiceError {
            return error.code == .validationFailed ? error.message : "\(error.code)"
        } catch {
            return "\(error)"
        }
    }

    @Test func aParameterGivenTwiceIsRefusedNotHalfRead() throws {
        #expect(try request("lat=1").queryValue("lat") == "1")
        #expect(try request("lon=1").queryValue("lat") == nil)
        #expect(refused("lat=1&lat=%7B%7D") { try $0.queryNumber("lat") } == "`lat` is given more than once.")
        #expect(refused("limit=5&limit=500") { try PageRequest<Int>(request: $0) } != nil)
        #expect(refused("cursor=&cursor=junk") { try PageRequest<Int>(request: $0) } != nil)
    }

    @Test func numbersMustBeFinite() {
        for bad in ["lat=abc", "lat=", "lat=nan", "lat=inf", "lat=1e400"] {
            #expect(refused(bad) { try $0.queryNumber("lat") } == "`lat` must be a number.", "\(bad)")
        }
    }

    @Test func aCircleIsWholeOrAbsent() throws {
        #expect(try request("tag=x").queryCircle(defaultRadius: 5000, maxRadius: 50_000) == nil)
        let paris = try #require(try request("lat=48.85&lon=2.35").queryCircle(defaultRadius: 5000, maxRadius: 50_000))
        #expect(paris.center == (try Coordinate(latitude: 48.85, longitude: 2.35)) && paris.radius == 5000)
        #expect(try request("lat=1&lon=2&radius_m=300").queryCircle(defaultRadius: nil, maxRadius: 500)?.radius == 300)

        func refusedCircle(_ query: String, defaultRadius: Double? = 5000) -> String? {
            refused(query) { try $0.queryCircle(defaultRadius: defaultRadius, maxRadius: 50_000) }
        }
        #expect(refusedCircle("radius_m=300") == "`radius_m` goes with `lat` and `lon`.")
        #expect(refusedCircle("lat=1") == "`lon` is required.")
        #expect(refusedCircle("lon=1") == "`lat` is required.")
        #expect(refusedCircle("lat=1&lon=2", defaultRadius: nil) == "`radius_m` is required.")
        #expect(refusedCircle("lat=1&lon=2&radius_m=0") == "`radius_m` must be from 1 to 50000.")
        #expect(refusedCircle("lat=1&lon=2&radius_m=50001") == "`radius_m` must be from 1 to 50000.")
        #expect(refusedCircle("lat=91&lon=2") != nil)
    }
}
