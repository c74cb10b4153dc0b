import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `feed_signal`: what a reader's app told of a post (seen, dwelt on, skipped,
/// opened), once per app id.
struct FeedSignalRecord: ServiceRecord {
    static let databaseTableName = "feed_signal"

    var userId: String
    var id: String
    var postId: String
    var kind: String
    var dwellMs: Int?
    var at: Date
}
