import Foundation

/// `POST /v1/posts`.
public struct CreatePostRequest: Codable, Sendable {
    /// A media object of the author's that is `ready`.
    public var mediaId: String
    /// Up to 500 characters.
    public var caption: String?
    /// -90...90.
    public var latitude: Double
    /// -180...180.
    public var longitude: Double

    enum CodingKeys: String, CodingKey { case mediaId, caption, latitude, longitude }

    public init(mediaId: String, caption: String? = nil, latitude: Double, longitude: Double) {
        self.mediaId = mediaId
        self.caption = caption
        self.latitude = latitude
        self.longitude = longitude
    }
}

/// A vote's direction.
public enum VoteValue: String, Codable, Sendable, CaseIterable {
    case up
    case down
}

/// `PUT /v1/posts/{id}/vote`.
public struct VoteRequest: Codable, Sendable {
    public var value: VoteValue

    enum CodingKeys: String, CodingKey { case value }

    public init(value: VoteValue) {
        self.value = value
    }
}

/// A post as a reader sees it.
public struct Post: Codable, Sendable, Equatable {
    public var id: String
    public var authorId: String
    public var mediaId: String
    public var caption: String?
    public var latitude: Double
    public var longitude: Double
    /// `upvotes - downvotes`.
    public var score: Int
    public var upvotes: Int
    public var downvotes: Int
    /// The reader's own vote, if any.
    public var myVote: VoteValue?
    /// Metres from the queried point (nearby lists only).
    public var distanceM: Double?
    public var createdAt: Date
    /// The media's state: only its author sees a post whose media is still `processing` (or
    /// was `rejected`); everyone sees it once `ready`.
    public var mediaStatus: MediaStatus

    enum CodingKeys: String, CodingKey {
        case id, authorId, mediaId, caption, latitude, longitude, score, upvotes, downvotes, myVote, distanceM
        case createdAt, mediaStatus
    }

    public init(
        id: String, authorId: String, mediaId: String, caption: String?, latitude: Double, longitude: Double,
        score: Int, upvotes: Int, downvotes: Int, myVote: VoteValue?, distanceM: Double?, createdAt: Date,
        mediaStatus: MediaStatus = .ready
    ) {
        self.mediaStatus = mediaStatus
        self.id = id
        self.authorId = authorId
        self.mediaId = mediaId
        self.caption = caption
        self.latitude = latitude
        self.longitude = longitude
        self.score = score
        self.upvotes = upvotes
        self.downvotes = downvotes
        self.myVote = myVote
        self.distanceM = distanceM
        self.createdAt = createdAt
    }
}

/// `GET /internal/posts/{id}` on feed: what moderation checks before taking a report.
public struct PostSummary: Codable, Sendable, Equatable {
    public var id: String
    public var authorId: String
    public var hidden: Bool

    enum CodingKeys: String, CodingKey { case id, authorId, hidden }

    public init(id: String, authorId: String, hidden: Bool) {
        self.id = id
        self.authorId = authorId
        self.hidden = hidden
    }
}
