import Contracts
import Foundation
import GRDB

/// Where a page of a newest-first list ends: the creation time and id of its last item. Lists
/// order by `created_at DESC, <id> DESC`, so items created in the same millisecond still
/// appear exactly once across pages.
public struct TimePosition: Codable, Sendable, Equatable {
    public var createdAt: Date
    public var id: String

    enum CodingKeys: String, CodingKey {
        case createdAt = "t"
        case id = "i"
    }

    public init(createdAt: Date, id: String) {
        self.createdAt = createdAt
        self.id = id
    }
}

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

extension Page {
    /// One page from records fetched with a limit of `limit + 1`: the extra record only tells
    /// that there is a next page, which starts after the last item shown.
    public init<Record, Position: Encodable>(
        _ records: [Record], limit: Int, item: (Record) throws -> Item, position: (Record) -> Position
    ) rethrows {
        let shown = records.prefix(limit)
        self.init(
            items: try shown.map(item),
            nextCursor: records.count > limit ? shown.last.map { Cursor.encode(position($0)) } : nil)
    }
}
