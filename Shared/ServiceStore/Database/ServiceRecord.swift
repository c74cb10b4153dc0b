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

extension ServiceRecord {
    /// The row whose primary key (of one column) is `key`, or nil: what GRDB's
    /// `fetchOne(_:key:)` answers, read with a statement the connection keeps. The query
    /// interface writes, parses and authorizes its SQL again on every call, which on a write's
    /// path (a post's counts, a message's conversation) was a tenth of the service's CPU.
    public static func fetchOne(_ db: Database, primaryKey key: some DatabaseValueConvertible) throws -> Self? {
        try fetchOne(db.cachedStatement(sql: "SELECT * FROM \(try keyed(in: db))"), arguments: [key])
    }

    /// Whether a row's primary key (of one column) is `key`: GRDB's `exists(_:key:)`, read as
    /// ``fetchOne(_:primaryKey:)`` reads.
    public static func exists(_ db: Database, primaryKey key: some DatabaseValueConvertible) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM \(try keyed(in: db)))"), arguments: [key])
            ?? false
    }

    /// `table WHERE key = ?`, for a table whose primary key is one column.
    private static func keyed(in db: Database) throws -> String {
        let columns = try db.primaryKey(databaseTableName).columns
        guard columns.count == 1 else {
            throw DatabaseError(message: "\(databaseTableName)'s primary key is \(columns.count) columns, not one")
        }
        return "\(databaseTableName.quotedDatabaseIdentifier) WHERE \(columns[0].quotedDatabaseIdentifier) = ?"
    }
}
