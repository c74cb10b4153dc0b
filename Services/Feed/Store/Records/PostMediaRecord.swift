import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `post_media`: a post's photo or video after the first (`post.media_id`).
struct PostMediaRecord: ServiceRecord {
    static let databaseTableName = "post_media"

    var postId: String
    var position: Int
    var mediaId: String
}
