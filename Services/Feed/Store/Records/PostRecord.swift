import Contracts
import Foundation
import GRDB
import ServiceKit

/// A row of `post`. `upvotes` and `downvotes` are kept in step with `vote` in the same
/// transaction as every vote change.
struct PostRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "post"

    var id: String
    var authorID: String
    var mediaID: String
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
        id: String, authorID: String, mediaID: String, caption: String?, latitude: Double, longitude: Double,
        upvotes: Int = 0, downvotes: Int = 0, hiddenAt: Date? = nil, createdAt: Date, mediaState: MediaStatus = .ready
    ) {
        self.mediaState = mediaState
        self.id = id
        self.authorID = authorID
        self.mediaID = mediaID
        self.caption = caption
        self.latitude = latitude
        self.longitude = longitude
        self.upvotes = upvotes
        self.downvotes = downvotes
        self.hiddenAt = hiddenAt
        self.createdAt = createdAt
        self.createdMs = JSONCoding.milliseconds(createdAt)
    }

    enum CodingKeys: String, CodingKey {
        case id
        case authorID = "author_id"
        case mediaID = "media_id"
        case caption, latitude, longitude, upvotes, downvotes
        case hiddenAt = "hidden_at"
        case createdAt = "created_at"
        case createdMs = "created_ms"
        case mediaState = "media_state"
    }

    func post(myVote: VoteValue?, distance: Double? = nil) -> Post {
        Post(
            id: id, authorId: authorID, mediaId: mediaID, caption: caption, latitude: latitude, longitude: longitude,
            score: upvotes - downvotes, upvotes: upvotes, downvotes: downvotes, myVote: myVote,
            distanceM: distance.map { ($0 * 10).rounded() / 10 }, createdAt: createdAt, mediaStatus: mediaState)
    }
}

extension VoteValue {
    /// +1 or -1, as stored.
    var weight: Int { self == .up ? 1 : -1 }

    init?(weight: Int?) {
        switch weight {
        case 1: self = .up
        case -1: self = .down
        default: return nil
        }
    }
}

extension MediaStatus: DatabaseValueConvertible {}
