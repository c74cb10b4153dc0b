import GRDB
import ServiceHTTP

extension QueryInterfaceRequest {
    /// This request newest first, after `position`, at most `limit` rows. `timeColumn` orders
    /// (default `created_at`), `idColumn` breaks ties between equal times.
    public func newestFirst(
        after position: TimePosition?, idColumn: String = "id", limit: Int, timeColumn: String = "created_at"
    ) -> Self {
        ordered(after: position, descending: true, idColumn: idColumn, limit: limit, timeColumn: timeColumn)
    }

    /// This request oldest first, after `position` (a thread's replies, a fan-out's batches).
    public func oldestFirst(
        after position: TimePosition?, idColumn: String = "id", limit: Int, timeColumn: String = "created_at"
    ) -> Self {
        ordered(after: position, descending: false, idColumn: idColumn, limit: limit, timeColumn: timeColumn)
    }

    private func ordered(
        after position: TimePosition?, descending: Bool, idColumn: String, limit: Int, timeColumn: String
    ) -> Self {
        let (beyond, direction) = descending ? ("<", " DESC") : (">", "")
        var request = self
        if let position {
            request = request.filter(
                sql: "(\(timeColumn) \(beyond) ? OR (\(timeColumn) = ? AND \(idColumn) \(beyond) ?))",
                arguments: [position.createdAt, position.createdAt, position.id])
        }
        return request.order(sql: "\(timeColumn)\(direction), \(idColumn)\(direction)").limit(limit)
    }
}

extension TimePosition {
    /// A page of `select` (`SELECT … FROM … WHERE …`, without `ORDER BY` or `LIMIT`), newest
    /// first after `position`, at most `limit` rows, read with one of two statements the
    /// connection keeps (the first page's and the next pages'): for the lists every screen
    /// opens, where ``QueryInterfaceRequest/newestFirst(after:idColumn:limit:timeColumn:)``
    /// would write and compile the same SQL on every request. `arguments` are `select`'s.
    public static func newestFirst<Record: FetchableRecord>(
        _ type: Record.Type, _ select: String, arguments: StatementArguments, after position: TimePosition?,
        limit: Int, idColumn: String = "id", timeColumn: String = "created_at", in db: Database
    ) throws -> [Record] {
        try ordered(
            type, select, arguments: arguments, after: position, descending: true, limit: limit, idColumn: idColumn,
            timeColumn: timeColumn, in: db)
    }

    /// The same, oldest first: for the batches a write walks through (a post's followers).
    public static func oldestFirst<Record: FetchableRecord>(
        _ type: Record.Type, _ select: String, arguments: StatementArguments, after position: TimePosition?,
        limit: Int, idColumn: String = "id", timeColumn: String = "created_at", in db: Database
    ) throws -> [Record] {
        try ordered(
            type, select, arguments: arguments, after: position, descending: false, limit: limit, idColumn: idColumn,
            timeColumn: timeColumn, in: db)
    }

    private static func ordered<Record: FetchableRecord>(
        _ type: Record.Type, _ select: String, arguments: StatementArguments, after position: TimePosition?,
        descending: Bool, limit: Int, idColumn: String, timeColumn: String, in db: Database
    ) throws -> [Record] {
        let (beyond, direction) = descending ? ("<", " DESC") : (">", "")
        var sql = select
        var arguments = arguments
        if let position {
            sql += " AND (\(timeColumn) \(beyond) ? OR (\(timeColumn) = ? AND \(idColumn) \(beyond) ?))"
            _ = arguments.append(contentsOf: [
                StoredDate(position.createdAt), StoredDate(position.createdAt), position.id,
            ])
        }
        _ = arguments.append(contentsOf: [limit])
        return try Record.fetchAll(
            db.cachedStatement(sql: sql + " ORDER BY \(timeColumn)\(direction), \(idColumn)\(direction) LIMIT ?"),
            arguments: arguments)
    }
}
