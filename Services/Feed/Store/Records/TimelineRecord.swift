import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `timeline`: `postId` is in `userId`'s following feed at `atMs`, brought by
/// `sourceId` (its author, or with `repost` the follower-of who reposted it).
struct TimelineRecord: ServiceRecord {
    static let databaseTableName = "timeline"

    var userId: String
    var atMs: Int64
    var postId: String
    var sourceId: String
    var repost: Bool
}

extension TimelineRecord {
    /// Read by hand rather than through `Decodable`, as ``PostRecord`` is: the following feed
    /// reads twice a page's rows through here.
    init(row: Row) throws {
        userId = try row.decode(forColumn: "user_id")
        atMs = try row.decode(forColumn: "at_ms")
        postId = try row.decode(forColumn: "post_id")
        sourceId = try row.decode(forColumn: "source_id")
        repost = try row.decode(forColumn: "repost")
    }
}
