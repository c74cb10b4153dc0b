import Foundation
import GRDB
import PropertyBased
import ServiceHTTP
import ServiceStore
import Testing

@testable import FeedService

/// Nearby's place cells: the cover of a box holds every point in it, the store's generated
/// columns agree with ``PlaceCells``, and the merged cell ranges read exactly the newest-first
/// order the latitude band gave.
@Suite struct PlaceCellsTests {
    static let grids = FeedStore.PlaceIndex.posts.grids

    /// A circle somewhere on Earth (10 m to 150 km) and a point in its bounding box, as
    /// fractions of the box.
    static let circleAndPoint = zip(
        Gen.double(in: -84...84), Gen.double(in: -180...180), Gen.double(in: 1...5.2), Gen.double(in: 0...1),
        Gen.double(in: 0...1))

    @Test func theCoverOfABoxHoldsTheCellOfEveryPointInIt() async {
        await propertyCheck(count: 2000, input: Self.circleAndPoint) { latitude, longitude, power, y, x in
            let center = try! Coordinate(latitude: latitude, longitude: longitude)
            let box = center.boundingBox(radius: pow(10, power))
            guard let longitudes = box.longitudes else { return }
            let point = try! Coordinate(
                latitude: box.latitudes.lowerBound + y * (box.latitudes.upperBound - box.latitudes.lowerBound),
                longitude: longitudes.lowerBound + x * (longitudes.upperBound - longitudes.lowerBound))
            let corner = try! Coordinate(latitude: box.latitudes.upperBound, longitude: longitudes.upperBound)
            for grid in Self.grids {
                guard let cover = grid.cells.cover(latitudes: box.latitudes, longitudes: longitudes) else { continue }
                #expect(cover.count <= PlaceCells.mostCells)
                #expect(cover.contains(grid.cells.cell(of: point)), "\(grid.name) \(point) in \(box)")
                #expect(cover.contains(grid.cells.cell(of: corner)), "\(grid.name) \(corner) in \(box)")
            }
            // A kilometre is read from the finest grid, five from the next.
            if pow(10, power) <= 1000 && abs(latitude) < 60 {
                #expect(Self.grids[0].cells.cover(latitudes: box.latitudes, longitudes: longitudes) != nil)
            }
            if pow(10, power) <= 5000 && abs(latitude) < 60 {
                #expect(Self.grids[1].cells.cover(latitudes: box.latitudes, longitudes: longitudes) != nil)
            }
        }
    }

    /// `count` posts around `center`, half within a kilometre or so and half within a degree
    /// (three to a millisecond, some on the antimeridian's 180), in a migrated store.
    static func store(_ count: Int, around center: Coordinate) throws -> DatabaseQueue {
        let queue = try DatabaseQueue()
        var migrator = DatabaseMigrator()
        FeedStore.registerMigrations(&migrator)
        try migrator.migrate(queue)
        var random = SystemRandomNumberGenerator()
        try queue.write { db in
            for n in 0..<count {
                let spread = n.isMultiple(of: 2) ? 0.01 : 1
                let latitude = min(89, max(-89, center.latitude + Double.random(in: -spread...spread, using: &random)))
                var longitude = center.longitude + Double.random(in: -spread...spread, using: &random)
                longitude = n % 97 == 0 ? 180 : min(180, max(-180, longitude))
                try db.execute(
                    sql: """
                        INSERT INTO post (id, author_id, media_id, caption, latitude, longitude, created_at,
                                          created_ms, media_state)
                        VALUES (?, 'alice', ?, '', ?, ?, '2026-11-26 10:00:00.000', ?, 'ready')
                        """,
                    arguments: [String(format: "p%05d", n), "m\(n)", latitude, longitude, Int64(n / 3)])
            }
        }
        return queue
    }

    @Test func theStoresCellsAreThoseOfPlaceCells() throws {
        let queue = try Self.store(3000, around: try Coordinate(latitude: -33.87, longitude: 179.5))
        try queue.read { db in
            #expect(Self.grids.count == 3)
            for grid in Self.grids {
                let rows = try Row.fetchAll(db, sql: "SELECT latitude, longitude, \(grid.column) FROM post")
                #expect(rows.count == 3000)
                for row in rows {
                    let point = try Coordinate(latitude: row[0], longitude: row[1])
                    #expect(row[2] as Int == grid.cells.cell(of: point), "\(grid.column) \(point)")
                }
            }
        }
    }

    @Test(arguments: [
        (48.85, 2.35, 300.0), (48.85, 2.35, 1000), (48.85, 2.35, 5000), (48.85, 2.35, 40_000),
        (48.85, 2.35, 300_000), (-33.87, 179.95, 5000), (-33.87, 179.95, 60_000),
    ])
    func mergedCellsReadTheNewestFirstOrderOfTheBand(latitude: Double, longitude: Double, radius: Double) throws {
        let center = try Coordinate(latitude: latitude, longitude: longitude)
        let queue = try Self.store(4000, around: center)
        let box = center.boundingBox(radius: radius)
        // Up to 40 km away from the antimeridian a grid serves the box (the merge is what is
        // compared); the 300 km box and those across 180° compare the band with itself.
        let gridded = box.longitudes.flatMap { longitudes in
            Self.grids.first { $0.cells.cover(latitudes: box.latitudes, longitudes: longitudes) != nil }
        }
        #expect((gridded != nil) == (radius <= 40_000 && longitude < 179))
        try queue.read { db in
            func drain(_ next: () throws -> FeedStore.PlaceRow?) throws -> [String] {
                var ids: [String] = []
                while let row = try next() { ids.append(row.id) }
                return ids
            }
            // The band alone (no grids) against the index as nearby reads it.
            let band = FeedStore.PlaceIndex(
                table: "post", name: "post_by_place", time: "created_ms",
                condition: FeedStore.PlaceIndex.posts.condition)
            let expected = try drain(FeedStore.newestFirst(band, in: box, after: nil, batch: 50, db: db))
            let read = try drain(FeedStore.newestFirst(.posts, in: box, after: nil, batch: 50, db: db))
            #expect(read == expected)
            #expect(!expected.isEmpty)
            // And after a position in the middle (ties on the millisecond broken by id).
            let middle = try #require(
                try Row.fetchOne(
                    db, sql: "SELECT created_ms, id FROM post WHERE id = ?", arguments: [expected[expected.count / 2]]))
            let after = (milliseconds: middle[0] as Int64, id: middle[1] as String)
            let rest = try drain(FeedStore.newestFirst(.posts, in: box, after: after, batch: 50, db: db))
            #expect(rest == Array(expected.dropFirst(expected.count / 2 + 1)))
        }
    }
}
