import Foundation
import GRDB
import TestSupport
import Testing

@testable import ServiceStore

@Suite struct ColumnNamesTests {
    /// Any name as a coding key, to see what a decoder made of a row's columns.
    struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The keys GRDB's own `.convertFromSnakeCase` gives a row's columns.
    struct GRDBKeys: Decodable, FetchableRecord {
        static let databaseColumnDecodingStrategy = DatabaseColumnDecodingStrategy.convertFromSnakeCase
        let keys: Set<String>
        init(from decoder: any Decoder) throws {
            keys = Set(try decoder.container(keyedBy: AnyKey.self).allKeys.map(\.stringValue))
        }
    }

    /// The kit's kept conversion names every column as GRDB's `.convertFromSnakeCase` does: the
    /// schemas' kinds of names (acronyms as words, digits, several words) and odd ones
    /// (doubled, leading and trailing underscores, capitals), a thousand generated besides.
    @Test func propertyNamesAreGRDBsOwn() throws {
        var names = [
            "id", "user_id", "display_sha256", "created_at", "last_completed_date", "avatar_media_id", "at_ms",
            "x", "_private", "trailing_", "__both__", "double__underscore", "Mixed_Case", "ALL_CAPS", "a_1_b",
            "sha256", "_", "2_d",
        ]
        var random = SplitMix(seed: 11)
        let alphabet = Array("abcxyzAZ0129_")
        for _ in 0..<1000 {
            let length = 1 + Int(random.next() % 14)
            names.append(String((0..<length).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] }))
        }
        for name in names {
            let row = Row([name: 1])
            let grdb = try GRDBKeys(row: row).keys
            #expect(grdb == [ColumnNames.camelCase(name)], "\(name)")
            #expect(ColumnNames.property(for: name) == ColumnNames.camelCase(name))
        }
    }
}
