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
