import GRDB
import ServiceHTTP

/// What a query reads: the columns of a table or of a join, decoded by GRDB into a `Decodable`
/// type whose camelCase properties are the snake_case columns (`author_id` is `authorId`).
/// The naming is set here once, so no record writes `CodingKeys`; acronyms are spelled as
/// words (`mediaId`, `displaySha256`) so that the conversion round-trips. The conversion is
/// GRDB's `.convertFromSnakeCase`, made cheap (``ColumnKeys``).
public protocol ServiceRow: Decodable, FetchableRecord {}

extension ServiceRow {
    public static var databaseColumnDecodingStrategy: DatabaseColumnDecodingStrategy { ColumnKeys.strategy }
}

/// A record of one table (GRDB's recommended practice: one record type per table, one file
/// each, with a `Columns` enum and request extensions for the filters that repeat), written
/// and read with the same snake_case naming (GRDB's `.convertToSnakeCase`, made cheap:
/// ``ColumnKeys``).
public protocol ServiceRecord: ServiceRow, Codable, PersistableRecord {}

extension ServiceRecord {
    public static var databaseColumnEncodingStrategy: DatabaseColumnEncodingStrategy { ColumnKeys.encodingStrategy }
}
