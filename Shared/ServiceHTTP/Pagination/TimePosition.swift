import Contracts
import Foundation

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
