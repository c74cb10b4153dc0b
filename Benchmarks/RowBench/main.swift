import Foundation
import GRDB
import ServiceStore

// What decoding a row costs, by how its columns are found: a list answer decodes one row per
// item, and a page of twenty decodes twenty. The same 200 rows of ten columns (a notification's
// shape) are fetched on a kept statement and decoded four ways, in turns, in one process:
//   - GRDB's `.convertFromSnakeCase`, the strategy ServiceRow had until e0ae30f;
//   - `ServiceRow` (the kit's column keys, what every record decodes with now);
//   - `CodingKeys` written out with GRDB's default keys (what every record would have to write);
//   - `init(row:)` by column index (no Decodable at all).
// Run in release:
//   swift run -c release row-bench [fetches=500] [rounds=5]

struct Kit: ServiceRow {
    let id: String
    let userId: String
    let createdAt: Int64
    let kind: String
    let actorId: String?
    let postId: String?
    let readAt: Int64?
    let displaySha256: String?
    let text: String
    let groupKey: String
}

struct GRDBSnakeCase: Decodable, FetchableRecord {
    static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }
    let id: String
    let userId: String
    let createdAt: Int64
    let kind: String
    let actorId: String?
    let postId: String?
    let readAt: Int64?
    let displaySha256: String?
    let text: String
    let groupKey: String
}

struct WrittenKeys: Decodable, FetchableRecord {
    let id: String
    let userId: String
    let createdAt: Int64
    let kind: String
    let actorId: String?
    let postId: String?
    let readAt: Int64?
    let displaySha256: String?
    let text: String
    let groupKey: String

    enum CodingKeys: String, CodingKey {
        case id, kind, text
        case userId = "user_id", createdAt = "created_at", actorId = "actor_id", postId = "post_id"
        case readAt = "read_at", displaySha256 = "display_sha256", groupKey = "group_key"
    }
}

struct ByIndex: FetchableRecord {
    let id: String
    let userId: String
    let createdAt: Int64
    let kind: String
    let actorId: String?
    let postId: String?
    let readAt: Int64?
    let displaySha256: String?
    let text: String
    let groupKey: String

    init(row: Row) {
        id = row[0]
        userId = row[1]
        createdAt = row[2]
        kind = row[3]
        actorId = row[4]
        postId = row[5]
        readAt = row[6]
        displaySha256 = row[7]
        text = row[8]
        groupKey = row[9]
    }
}

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let fetches = arguments.first ?? 500
let rounds = arguments.dropFirst().first ?? 5
let rows = 200

let database = try DatabaseQueue()
try database.write { db in
    try db.execute(
        sql: """
            CREATE TABLE notification (id TEXT, user_id TEXT, created_at INTEGER, kind TEXT, actor_id TEXT,
            post_id TEXT, read_at INTEGER, display_sha256 TEXT, text TEXT, group_key TEXT)
            """)
    for index in 0..<rows {
        try db.execute(
            sql: """
                INSERT INTO notification VALUES (?, 'c3d1a9e2-5b7f-4e1a-9c2d-8f6e4b3a2d10', ?, 'vote', 'actor-2041',
                'post-88213', NULL, '9f86d081884c7d659a2feaa0c55ad015', 'Ana voted for your photo', 'post-88213:vote')
                """, arguments: ["n-\(index)", 1_765_000_000_000 + index])
    }
}

/// Nanoseconds a row: `fetches` fetches of every row on one kept statement.
func nanosecondsPerRow<Record: FetchableRecord>(_ type: Record.Type) throws -> Double {
    let start = ContinuousClock.now
    try database.read { db in
        let statement = try db.cachedStatement(sql: "SELECT * FROM notification")
        for _ in 0..<fetches {
            let decoded = try Record.fetchAll(statement)
            precondition(decoded.count == rows)
        }
    }
    let elapsed = ContinuousClock.now - start
    let nanoseconds = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
    return nanoseconds / Double(fetches * rows)
}

let ways: [(String, () throws -> Double)] = [
    ("GRDB's convertFromSnakeCase", { try nanosecondsPerRow(GRDBSnakeCase.self) }),
    ("ServiceRow (the kit's keys)", { try nanosecondsPerRow(Kit.self) }),
    ("CodingKeys written out", { try nanosecondsPerRow(WrittenKeys.self) }),
    ("init(row:) by index", { try nanosecondsPerRow(ByIndex.self) }),
]
for (_, measure) in ways { _ = try measure() }  // warm-up
print("\(rows) rows of ten columns, \(fetches) fetches a way, \(rounds) rounds; nanoseconds a row")
print("way".padding(toLength: 30, withPad: " ", startingAt: 0) + (1...rounds).map { "  round \($0)" }.joined())
var figures = Array(repeating: [Double](), count: ways.count)
for _ in 1...rounds {
    for (index, way) in ways.enumerated() { figures[index].append(try way.1()) }
}
for (index, way) in ways.enumerated() {
    print(
        way.0.padding(toLength: 30, withPad: " ", startingAt: 0)
            + figures[index].map { String(format: "%9.0f", $0) }.joined())
}
