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

    /// The column GRDB's own `.convertToSnakeCase` writes a key to.
    struct GRDBColumn: Encodable, EncodableRecord {
        static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .convertToSnakeCase }
        let key: String
        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: GRDBKeys.Key.self)
            try container.encode(1, forKey: GRDBKeys.Key(stringValue: key))
        }
    }

    static func grdbColumn(_ key: String) throws -> String? {
        try GRDBColumn(key: key).databaseDictionary.keys.first
    }

    @Test(arguments: [
        "id", "authorId", "createdAt", "displaySha256", "sha256Hex", "Id", "AbC", "myURLKey", "myURL", "aB1C",
        "hex2X", "a_b", "_private", "", "x", "ABc", "userID", "caféAuLait", "éTé", "mediaId", "a1B2c",
    ])
    func theColumnIsGRDBs(_ key: String) throws {
        #expect(ColumnKeys.snakeCase(key) == (try Self.grdbColumn(key)) ?? key, "\(key)")
    }

    /// Keys made of the pieces that matter (letters of both cases, runs of capitals, digits,
    /// underscores, letters outside ASCII) convert as GRDB converts them.
    @Test func everyKeyConvertsAsGRDBConvertsIt() async {
        let pieces = ["a", "b", "Id", "Sha", "X", "URL", "2", "56", "_", "é", "É", "at", "User"]
        await propertyCheck(count: 3000, input: Gen.element(of: pieces).array(of: 0...8)) { parts in
            let key = parts.compactMap { $0 }.joined()
            guard let expected = try? Self.grdbColumn(key) else { return }
            #expect(ColumnKeys.snakeCase(key) == expected, "\(key)")
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

    /// A record writes its properties to the snake_case columns it is read from.
    @Test func aRecordEncodesThroughTheStrategy() throws {
        struct Sample: ServiceRecord {
            static let databaseTableName = "sample"
            let authorId: String
            let displaySha256: String
            let id: Int
        }
        let columns = try Sample(authorId: "u1", displaySha256: "ab", id: 7).databaseDictionary
        #expect(
            columns == ["author_id": "u1".databaseValue, "display_sha256": "ab".databaseValue, "id": 7.databaseValue])
    }
}
