import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `post`: a photo at a place, or text with an optional link, media and
/// place, maybe a reply (`parentId`, `rootId`) or a quote (`quoteOf`). The counts (`upvotes`,
/// `downvotes`, `likeCount`, `replyCount`, `repostCount`) are kept in the transaction of each
/// action that changes them.
struct PostRecord: ServiceRecord {
    static let databaseTableName = "post"

    var id: String
    var authorId: String
    /// The first photo or video (the others are in `post_media`).
    var mediaId: String?
    /// The words (sent as `text`, or as `caption` with a photo at a place).
    var caption: String?
    var latitude: Double?
    var longitude: Double?
    var upvotes = 0
    var downvotes = 0
    /// Set when moderation hid it (`content.hidden`).
    var hiddenAt: Date?
    var createdAt: Date
    /// `createdAt` in milliseconds since 1970, the order of lists.
    var createdMs: Int64
    /// The photo's or video's state at media: others see the post only once it is `ready`
    /// (`media.ready`); `rejected` (`media.rejected`) keeps it from them for good.
    var mediaState: MediaStatus = .ready
    var linkUrl: String?
    /// The post this one answers, and the first post of its thread.
    var parentId: String?
    var rootId: String?
    /// The post this one quotes.
    var quoteOf: String?
    var likeCount = 0
    var replyCount = 0
    var repostCount = 0
    /// Set when its author deleted it: the row stays, emptied, as its replies' placeholder.
    var deletedAt: Date?

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case authorId = "author_id"
        case mediaId = "media_id"
        case hiddenAt = "hidden_at"
        case mediaState = "media_state"
        case parentId = "parent_id"
        case deletedAt = "deleted_at"
    }

    /// The post as `viewer` sees it, with what they did to it.
    func post(myVote: VoteValue?, distance: Double? = nil, viewer: ViewerMarks = ViewerMarks()) -> Post {
        let deleted = deletedAt != nil
        return Post(
            id: id, authorId: authorId, mediaId: mediaId, caption: caption, latitude: latitude, longitude: longitude,
            score: upvotes - downvotes, upvotes: upvotes, downvotes: downvotes, myVote: myVote,
            distanceM: distance.map { ($0 * 10).rounded() / 10 }, createdAt: createdAt, mediaStatus: mediaState,
            text: caption ?? "", linkURL: linkUrl, linkPreview: PostDraft.preview(of: linkUrl),
            mediaIds: viewer.mediaIds, replyTo: parentId, rootId: rootId,
            quoteOf: quoteOf, likeCount: likeCount, replyCount: replyCount, repostCount: repostCount,
            liked: viewer.liked, reposted: viewer.reposted, deleted: deleted ? true : nil)
    }

    /// What a post's reader did to it, and its media beyond the first.
    struct ViewerMarks: Sendable {
        var liked = false
        var reposted = false
        /// Every photo and video, in order (nil: none).
        var mediaIds: [String]? = nil
    }
}

extension PostRecord {
    /// A new post, its counts at zero. Written in an extension so that the memberwise
    /// initializer of every column stays available to it.
    init(
        id: String, authorId: String, mediaId: String?, caption: String?, latitude: Double?, longitude: Double?,
        createdAt: Date, mediaState: MediaStatus = .ready, linkUrl: String? = nil, parentId: String? = nil,
        rootId: String? = nil, quoteOf: String? = nil
    ) {
        self.init(
            id: id, authorId: authorId, mediaId: mediaId, caption: caption, latitude: latitude, longitude: longitude,
            createdAt: createdAt, createdMs: JSONCoding.milliseconds(createdAt), mediaState: mediaState,
            linkUrl: linkUrl, parentId: parentId, rootId: rootId, quoteOf: quoteOf)
    }
}

extension PostRecord {
    /// Read by hand rather than through `Decodable` (whose snake-case keys cost more than the
    /// query): every list of posts reads its rows through here.
    init(row: Row) throws {
        id = try row.decode(forColumn: "id")
        authorId = try row.decode(forColumn: "author_id")
        mediaId = try row.decode(forColumn: "media_id")
        caption = try row.decode(forColumn: "caption")
        latitude = try row.decode(forColumn: "latitude")
        longitude = try row.decode(forColumn: "longitude")
        upvotes = try row.decode(forColumn: "upvotes")
        downvotes = try row.decode(forColumn: "downvotes")
        hiddenAt = try row.decode(forColumn: "hidden_at")
        createdAt = try row.decode(forColumn: "created_at")
        createdMs = try row.decode(forColumn: "created_ms")
        mediaState = try row.decode(forColumn: "media_state")
        linkUrl = try row.decode(forColumn: "link_url")
        parentId = try row.decode(forColumn: "parent_id")
        rootId = try row.decode(forColumn: "root_id")
        quoteOf = try row.decode(forColumn: "quote_of")
        likeCount = try row.decode(forColumn: "like_count")
        replyCount = try row.decode(forColumn: "reply_count")
        repostCount = try row.decode(forColumn: "repost_count")
        deletedAt = try row.decode(forColumn: "deleted_at")
    }
}
