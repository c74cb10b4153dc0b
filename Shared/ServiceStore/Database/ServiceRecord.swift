import Foundation
import GRDB
import ServiceHTTP
import Synchronization

/// What a query reads: the columns of a table or of a join, decoded by GRDB into a `Decodable`
/// type whose camelCase properties are the snake_case columns (`author_id` is `authorId`).
/// The naming is set here once, so no record writes `CodingKeys`; acronyms are spelled as
/// words (`mediaId`, `displaySha256`) so that the conversion round-trips.
public protocol ServiceRow: Decodable, FetchableRecord {}

extension ServiceRow {
    public static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { ColumnNames.decoding }
}

/// Column names as property names (`author_id` is `authorId`), each name converted once per
/// process. GRDB's `.convertFromSnakeCase` converts every column of every row it decodes again
/// (splitting, lowercasing and capitalizing strings): 9 % of auth's CPU for `GET /v1/me`, more
/// for a list of twenty rows. The conversion is GRDB's (a test compares them).
public enum ColumnNames {
    static let decoding = DatabaseColumnDecodingStrategy.custom { PropertyKey(ColumnNames.property(for: $0)) }

    private static let known = Mutex<[String: String]>([:])

    /// The property name of `column`.
    public static func property(for column: String) -> String {
        if let known = known.withLock({ $0[column] }) { return known }
        let property = camelCase(column)
        known.withLock { $0[column] = property }
        return property
    }

    static func camelCase(_ column: String) -> String {
        guard let first = column.firstIndex(where: { $0 != "_" }) else { return column }
        var last = column.index(before: column.endIndex)
        while last > first && column[last] == "_" { column.formIndex(before: &last) }
        let words = column[first...last].split(separator: "_")
        guard words.count > 1 else { return column }
        // As Foundation's JSON decoder converts keys, and GRDB after it: the first word in lower
        // case, the others capitalized (a digit ends a word there: `a_b2c` is `aB2C`).
        let joined = ([words[0].lowercased()] + words.dropFirst().map { String($0).capitalized }).joined()
        return String(column[..<first]) + joined + String(column[column.index(after: last)...])
    }

    struct PropertyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// A record of one table (GRDB's recommended practice: one record type per table, one file
/// each, with a `Columns` enum and request extensions for the filters that repeat), written
/// and read with the same snake_case naming.
public protocol ServiceRecord: ServiceRow, Codable, PersistableRecord {}

extension ServiceRecord {
    public static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { .convertToSnakeCase }
}
