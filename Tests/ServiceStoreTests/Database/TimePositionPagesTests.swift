import Foundation
import GRDB
import TestSupport
import Testing

@testable import ServiceHTTP
@testable import ServiceStore

@Suite struct TimePositionPagesTests {
    struct Item: Codable, FetchableRecord, PersistableRecord, Equatable {
        var id: String
        var owner: String
        var createdAt: Date

        enum CodingKeys: String, CodingKey {
            case id, owner
            case createdAt = "created_at"
        }
    }

    /// Pages of one owner's items, `limit` at a time, by `page` (the request's position and
    /// limit in, a page out), until a short page.
    static func walk(limit: Int, _ page: (TimePosition?) throws -> [Item]) rethrows -> [String] {
        var seen: [String] = []
        var position: TimePosition?
        while true {
            let items = try page(position)
            seen += items.map(\.id)
            guard items.count == limit, let last = items.last else { return seen }
            position = TimePosition(createdAt: last.createdAt, id: last.id)
        }
    }

    /// The kept-statement pages read what the query interface's do: newest first (and oldest
    /// first), ties by id,
    /// every row once, none of another owner's, across pages that split a run of equal times.
    @Test func keptStatementPagesMatchTheQueryInterfaces() throws {
        let queue = try DatabaseQueue()
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var random = SplitMix(seed: 7)
        try queue.write { db in
            try db.create(table: "item") { table in
                table.column("id", .text).primaryKey()
                table.column("owner", .text).notNull()
                table.column("created_at", .datetime).notNull()
            }
            for index in 0..<200 {
                // Ten distinct times for 200 rows: most pages end inside a tie.
                let at = start.addingTimeInterval(Double(random.next() % 10) + 0.001 * Double(index % 3))
                try Item(id: String(format: "i%03d", index), owner: index % 4 == 0 ? "bob" : "ann", createdAt: at)
                    .insert(db)
            }
        }
        try queue.read { db in
            for limit in [1, 7, 50, 500] {
                let kept = try Self.walk(limit: limit) {
                    try TimePosition.newestFirst(
                        Item.self, "SELECT * FROM item WHERE owner = ?", arguments: ["ann"], after: $0, limit: limit,
                        in: db)
                }
                let built = try Self.walk(limit: limit) {
                    try Item.filter(Column("owner") == "ann").newestFirst(after: $0, limit: limit).fetchAll(db)
                }
                let all = try Item.filter(Column("owner") == "ann").fetchAll(db)
                    .sorted { ($0.createdAt, $0.id) > ($1.createdAt, $1.id) }.map(\.id)
                #expect(kept == built)
                #expect(kept == all)

                let keptOldest = try Self.walk(limit: limit) {
                    try TimePosition.oldestFirst(
                        Item.self, "SELECT * FROM item WHERE owner = ?", arguments: ["ann"], after: $0, limit: limit,
                        in: db)
                }
                let builtOldest = try Self.walk(limit: limit) {
                    try Item.filter(Column("owner") == "ann").oldestFirst(after: $0, limit: limit).fetchAll(db)
                }
                #expect(keptOldest == builtOldest)
                #expect(keptOldest == all.reversed())
            }
        }
    }
}
