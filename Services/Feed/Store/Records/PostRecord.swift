import Contracts
import Foundation
import GRDB
import ServiceKit

/// A row of `post`. `upvotes` and `downvotes` are kept in step with `vote` in the same
/// transaction as every vote change.
struct PostRecord: ServiceRecord {
    static let databaseTableName = "post"

    var id: String
    var authorId: String
    var mediaId: String
    var caption: String?
    var latitude: Double
    var longitude: Double
    var upvotes: Int
    var downvotes: Int
    /// Set when moderation hid it (`content.hidden`).
    var hiddenAt: Date?
    var createdAt: Date
    /// `createdAt` in milliseconds since 1970, the order of nearby lists.
    var createdMs: Int64
    /// The photo's or video's state at media: others see the post only once it is `ready`
    /// (`media.ready`); `rejected` (`media.rejected`) keeps it from them for good.
    var mediaState: MediaStatus = .ready

    init(
        id: String, authorId: String, mediaId: String, caption: String?, latitude: Double, longitude: Double,
        upvotes: Int = 0, downvotes: Int = 0, hiddenAt: Date? = nil, createdAt: Date, mediaState: MediaStatus = .ready
    ) {
        self.id = id
        self.authorId = authorId
        self.mediaId = mediaId
        self.caption = caption
        self.latitude = latitude
        self.longitude = longitude
        self.upvotes = upvotes
        self.downvotes = downvotes
        self.hiddenAt = hiddenAt
        self.createdAt = createdAt
        self.createdMs = JSONCoding.milliseconds(createdAt)
        self.mediaState = mediaState
    }

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case authorId = "author_id"
        case mediaId = "media_id"
        case hiddenAt = "hidden_at"
        case mediaState = "media_state"
    }

    func post(myVote: VoteValue?, distance: Double? = nil) -> Post {
        Post(
            id: id, authorId: authorId, mediaId: mediaId, caption: caption, latitude: latitude, longitude: longitude,
            score: upvotes - downvotes, upvotes: upvotes, downvotes: downvotes, myVote: myVote,
            distanceM: distance.map { ($0 * 10).rounded() / 10 }, createdAt: createdAt, mediaStatus: mediaState)
    }
}

extension MediaStatus: DatabaseValueConvertible {}
