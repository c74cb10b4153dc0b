import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `post_like`: `userId` likes `postId` (one each; counted in `post.like_count`).
struct PostLikeRecord: ServiceRecord {
    static let databaseTableName = "post_like"

    var postId: String
    var userId: String
    var createdAt: Date
}
