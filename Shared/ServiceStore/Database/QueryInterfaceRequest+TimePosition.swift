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
