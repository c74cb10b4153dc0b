import Foundation
import GRDB
import Testing

@testable import ServiceHTTP
@testable import ServiceStore

@Suite struct JSONCodingTests {
    struct Stamp: Codable, Equatable {
        var at: Date
    }

    /// What a service answers when it creates a row equals what it answers when it reads it back.
    @Test func aDateReadsTheSameBeforeAndAfterTheStore() throws {
        let database = try DatabaseQueue()
        try database.write { db in try db.execute(sql: "CREATE TABLE t (at DATETIME NOT NULL)") }
        var random = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let date = Date(timeIntervalSince1970: Double.random(in: 1_700_000_000...1_900_000_000, using: &random))
            let stored = try database.write { db in
                try db.execute(sql: "DELETE FROM t")
                try db.execute(sql: "INSERT INTO t (at) VALUES (?)", arguments: [date])
                return try Date.fetchOne(db, sql: "SELECT at FROM t")!
            }
            let encoder = JSONCoding.encoder()
            #expect(
                try encoder.encode(Stamp(at: date)) == encoder.encode(Stamp(at: stored)),
                "\(date.timeIntervalSince1970)")
        }
    }

    @Test func timestampsAreUTCWithMilliseconds() {
        #expect(JSONCoding.timestamp(Date(timeIntervalSince1970: 1.5)) == "1970-01-01T00:00:01.500Z")
        #expect(JSONCoding.timestamp(Date(timeIntervalSince1970: 1_795_316_673.0996)) == "2026-11-22T03:04:33.100Z")
        #expect(JSONCoding.timestamp(Date(timeIntervalSince1970: -0.25)) == "1969-12-31T23:59:59.750Z")
        #expect(JSONCoding.timestamp(Date(timeIntervalSince1970: 59.9996)) == "1970-01-01T00:01:00.000Z")
    }

    /// The integer arithmetic writes what Foundation's format style writes, from 1583 (where it
    /// stops using the Julian calendar) to 9999; earlier years are Foundation's own.
    @Test func timestampsMatchFoundationsFormat() {
        var random = SystemRandomNumberGenerator()
        let edges: [Int64] = [
            0, -1, 86_399_999, 86_400_000, 951_782_400_000, 253_402_300_799_999, -12_212_553_600_000,
            -12_212_553_600_001, -62_135_596_800_000,
        ]
        let samples = (0..<20_000).map { _ in
            Int64.random(in: -12_212_553_600_000...253_402_300_799_999, using: &random)
        }
        for milliseconds in edges + samples {
            let date = JSONCoding.date(milliseconds: milliseconds)
            #expect(JSONCoding.timestamp(date) == JSONCoding.formattedTimestamp(milliseconds), "\(milliseconds)")
        }
    }
}
