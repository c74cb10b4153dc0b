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

    @Test func numbersMustBeFiniteDecimals() throws {
        for bad in [
            "lat=abc", "lat=", "lat=nan", "lat=inf", "lat=1e400", "lat=0x30", "lat=+1", "lat=.5", "lat=1.", "lat=1e",
            "lat=%201", "lat=1%20", "lat=1_0", "lat=--1",
        ] {
            #expect(refused(bad) { try $0.queryNumber("lat") } == "`lat` must be a number.", "\(bad)")
        }
        for (good, value) in [("48", 48.0), ("-33.5", -33.5), ("1e2", 100.0), ("2.5E-1", 0.25), ("0.000001", 1e-6)] {
            #expect(try request("lat=\(good)").queryNumber("lat") == value, "\(good)")
        }
    }

    @Test func countsAreDigitsOnly() {
        #expect(StrictNumbers.count("0") == 0 && StrictNumbers.count("1048576") == 1_048_576)
        for bad in ["", "+10", "-1", " 10", "10 ", "0x0a", "1e1", "1_000", "١٠", String(repeating: "9", count: 19)] {
            #expect(StrictNumbers.count(bad) == nil, "\(bad)")
        }
    }

    /// JSON bodies as RFC 8259 has them: no byte order mark, no raw control characters (an
    /// escaped one is a character like any other); whitespace between tokens is fine.
    @Test func jsonBodiesAreJSONNotWhatTheDecoderForgives() throws {
        struct Note: Decodable { var text: String }
        func decode(_ bytes: [UInt8]) throws -> Note {
            try Request.decodeJSON(Note.self, from: ByteBuffer(bytes: bytes))
        }
        #expect(try decode(Array("\t{\r\n\"text\": \"a\\u0000b\"}\n".utf8)).text == "a\u{0}b")
        for (bad, reason) in [
            ([0xEF, 0xBB, 0xBF] + Array(#"{"text":"hi"}"#.utf8), "byte order mark"),
            (Array(#"{"text":"a"#.utf8) + [0x00] + Array(#"b"}"#.utf8), "raw control character"),
            (Array(#"{"text":"a"#.utf8) + [0x1F] + Array(#"b"}"#.utf8), "raw control character"),
        ] {
            #expect {
                try decode(bad)
            } throws: { error in
                (error as? ServiceError)?.code == .malformedRequest
                    && (error as? ServiceError)?.message.contains(reason) == true
            }
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
