import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `repost`: `userId` reposted `postId` as it is (one each; counted in
/// `post.repost_count` with the quotes).
struct RepostRecord: ServiceRecord {
    static let databaseTableName = "repost"

    var postId: String
    var userId: String
    var createdAt: Date
    var createdMs: Int64
}
