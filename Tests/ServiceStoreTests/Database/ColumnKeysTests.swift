import GRDB
import PropertyBased
import Testing

@testable import ServiceStore

@Suite struct ColumnKeysTests {
    /// The keys GRDB's own `.convertFromSnakeCase` gives the columns of a row.
    struct GRDBKeys: Decodable, FetchableRecord {
        static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { .convertFromSnakeCase }
        struct Key: CodingKey {
            var stringValue: String
            init(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }
        let keys: [String]
        init(from decoder: any Decoder) throws {
            keys = try decoder.container(keyedBy: Key.self).allKeys.map(\.stringValue)
        }
    }

    static func grdb(_ column: String) throws -> String? {
        try GRDBKeys(row: Row([column: 1])).keys.first
    }

    @Test(arguments: [
        "id", "author_id", "created_at", "display_sha256", "sha256_hex2x", "a__b", "_private", "trailing_",
        "__both__", "_", "", "Mixed_Case", "ALL_CAPS", "x_2fa", "café_au_lait", "media_id", "a1b_c2d",
    ])
    func theKeyIsGRDBs(_ column: String) throws {
        #expect(ColumnKeys.camelCase(column) == (try Self.grdb(column)) ?? column, "\(column)")
    }

    /// Names made of the pieces that matter (letters of both cases, digits, underscores, a
    /// letter outside ASCII) convert as GRDB converts them.
    @Test func everyNameConvertsAsGRDBConvertsIt() async {
        let pieces = ["_", "_", "a", "b", "id", "sha", "2", "56", "X", "é", "at", "user"]
        await propertyCheck(count: 3000, input: Gen.element(of: pieces).array(of: 0...8)) { parts in
            let column = parts.compactMap { $0 }.joined()
            guard let expected = try? Self.grdb(column) else { return }
            #expect(ColumnKeys.camelCase(column) == expected, "\(column)")
        }
    }

    /// A record decodes through the strategy (a column with an inner underscore and one with
    /// a digit after a letter).
    @Test func aRowDecodesThroughTheStrategy() throws {
        struct Sample: ServiceRow {
            let authorId: String
            let displaySha256: String
            let createdAt: Int
        }
        let row = Row(["author_id": "u1", "display_sha256": "ab", "created_at": 7])
        let sample = try Sample(row: row)
        #expect(sample.authorId == "u1")
        #expect(sample.displaySha256 == "ab")
        #expect(sample.createdAt == 7)
    }
}
