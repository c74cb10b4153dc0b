import Foundation

/// `POST /v1/posts`: a photo at a place (`mediaId`, `latitude`, `longitude`, an optional
/// `caption`), or a post of words: `text` with an optional `linkURL`, media (`mediaIds`, or
/// `mediaId`) and place; `replyTo` answers a post, `quoteOf` quotes one.
public struct CreatePostRequest: Codable, Sendable {
    /// A media object of the author's (for a photo at a place: required, `ready` or still processing).
    public var mediaId: String?
    /// Another name for the words (photo-map clients send it); the same as `text`.
    public var caption: String?
    /// Up to 500 characters.
    public var text: String?
    /// An `https` (or `http`) link shown with the post; never fetched by the server.
    public var linkURL: String?
    /// Up to 4 of the author's media, `ready`, in order.
    public var mediaIds: [String]?
    /// -90...90, with `longitude` (both or neither).
    public var latitude: Double?
    /// -180...180.
    public var longitude: Double?
    /// The post this one answers.
    public var replyTo: String?
    /// The post this one quotes.
    public var quoteOf: String?

    enum CodingKeys: String, CodingKey {
        case mediaId, caption, text, linkURL, mediaIds, latitude, longitude, replyTo, quoteOf
    }

    public init(mediaId: String, caption: String? = nil, latitude: Double, longitude: Double) {
        self.mediaId = mediaId
        self.caption = caption
        self.latitude = latitude
        self.longitude = longitude
    }

    public init(
        text: String?, linkURL: String? = nil, mediaIds: [String]? = nil, latitude: Double? = nil,
        longitude: Double? = nil, replyTo: String? = nil, quoteOf: String? = nil
    ) {
        self.text = text
        self.linkURL = linkURL
        self.mediaIds = mediaIds
        self.latitude = latitude
        self.longitude = longitude
        self.replyTo = replyTo
        self.quoteOf = quoteOf
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

    public init(value: VoteValue) {
        self.value = value
    }
}

/// A post as a reader sees it.
public struct Post: Codable, Sendable, Equatable {
    public var id: String
    public var authorId: String
    /// The first photo or video, if any.
    public var mediaId: String?
    /// `text` again, under the name photo-map clients read (absent when there are no words).
    public var caption: String?
    public var latitude: Double?
    public var longitude: Double?
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
    /// The words ("" when none); empty too once deleted.
    public var text: String
    public var linkURL: String?
    /// What to show for `linkURL`, worked out from the address alone (nothing is fetched).
    public var linkPreview: LinkPreview?
    /// Every photo and video, in order.
    public var mediaIds: [String]?
    /// The post this one answers, and the first post of its thread.
    public var replyTo: String?
    public var rootId: String?
    /// The post this one quotes.
    public var quoteOf: String?
    public var likeCount: Int
    public var replyCount: Int
    public var repostCount: Int
    /// Whether the reader liked it, reposted it.
    public var liked: Bool
    public var reposted: Bool
    /// True for a post its author deleted, kept as a placeholder in its thread.
    public var deleted: Bool?
    /// Who wrote it: name, username and avatar, so a card needs no other request.
    public var author: PersonView?
    /// Every photo and video as a view (size, placeholder, signed URLs), in `mediaIds` order.
    public var media: [MediaView]?
    /// Who wrote the post this one answers, and the first post of its thread ("replying to
    /// @maya"); absent when a block stands between the reader and them.
    public var replyToAuthor: PersonView?
    public var rootAuthor: PersonView?
    /// The post of `quoteOf` as the quote's card shows it; absent when the reader may not see it.
    public var quoted: QuotedPost?

    enum CodingKeys: String, CodingKey {
        case id, authorId, mediaId, caption, latitude, longitude, score, upvotes, downvotes, myVote, distanceM
        case createdAt, mediaStatus, text, linkURL, linkPreview, mediaIds, replyTo, rootId, quoteOf, likeCount
        case replyCount
        case repostCount, liked, reposted, deleted, author, media, replyToAuthor, rootAuthor, quoted
    }

    public init(
        id: String, authorId: String, mediaId: String?, caption: String?, latitude: Double?, longitude: Double?,
        score: Int, upvotes: Int, downvotes: Int, myVote: VoteValue?, distanceM: Double?, createdAt: Date,
        mediaStatus: MediaStatus = .ready, text: String? = nil, linkURL: String? = nil,
        linkPreview: LinkPreview? = nil, mediaIds: [String]? = nil,
        replyTo: String? = nil, rootId: String? = nil, quoteOf: String? = nil, likeCount: Int = 0,
        replyCount: Int = 0, repostCount: Int = 0, liked: Bool = false, reposted: Bool = false, deleted: Bool? = nil
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
        self.text = text ?? caption ?? ""
        self.linkURL = linkURL
        self.linkPreview = linkPreview
        self.mediaIds = mediaIds
        self.replyTo = replyTo
        self.rootId = rootId
        self.quoteOf = quoteOf
        self.likeCount = likeCount
        self.replyCount = replyCount
        self.repostCount = repostCount
        self.liked = liked
        self.reposted = reposted
        self.deleted = deleted
    }
}

/// A quoted post as its quote's card shows it (Bluesky's embedded record): who wrote it, its
/// words and link, its photos and videos as views. One level: a quoted quote shows its own
/// `quoteOf` id only.
public struct QuotedPost: Codable, Sendable, Equatable {
    public var id: String
    public var authorId: String
    public var author: PersonView?
    public var text: String
    public var linkURL: String?
    public var media: [MediaView]?
    public var createdAt: Date

    /// `post` as a quote shows it (its `author` and `media` as they are on it).
    public init(_ post: Post) {
        id = post.id
        authorId = post.authorId
        author = post.author
        text = post.text
        linkURL = post.linkURL
        media = post.media
        createdAt = post.createdAt
    }
}

/// A link's card, made without fetching anything (no request to arbitrary addresses, so no
/// server-side request forgery): the site it leads to and a short form of the address.
public struct LinkPreview: Codable, Sendable, Equatable {
    public var url: String
    /// The host without `www.` (`example.com`).
    public var site: String
    /// The host and path, at most 40 characters (`example.com/pier/golden-hou…`).
    public var display: String
    /// Whether the link is `https`.
    public var secure: Bool

    public init(url: String, site: String, display: String, secure: Bool) {
        self.url = url
        self.site = site
        self.display = display
        self.secure = secure
    }
}

/// One item of the following feed: a post, or a post someone I follow reposted.
public struct TimelineItem: Codable, Sendable, Equatable {
    public var post: Post
    /// Who reposted it, when the item is a repost.
    public var repostedBy: String?
    /// When it entered the feed (the post's time, or the repost's).
    public var at: Date
    /// The person of `repostedBy` ("reposted by Noah").
    public var by: PersonView?

    public init(post: Post, repostedBy: String?, at: Date, by: PersonView? = nil) {
        self.post = post
        self.repostedBy = repostedBy
        self.at = at
        self.by = by
    }
}

/// `post.liked`, `post.replied`, `post.reposted`: someone acted on `authorId`'s post
/// (notifications `like`, `reply`, `repost`; `postId` is the post acted on, `replyId` the
/// reply or quote when there is one).
public struct PostActivity: Codable, Sendable, Equatable {
    public var postId: String
    public var authorId: String
    public var actor: EventActor
    public var replyId: String?

    public init(postId: String, authorId: String, actor: EventActor, replyId: String? = nil) {
        self.postId = postId
        self.authorId = authorId
        self.actor = actor
        self.replyId = replyId
    }
}

/// `post.mentioned`: `actor` named `mentionedId` (`@username`) in post `postId`
/// (notification `mention`).
public struct PostMentioned: DomainEvent, Equatable {
    public static let eventType: EventType = "post.mentioned"
    public var postId: String
    public var mentionedId: String
    public var actor: EventActor

    public init(postId: String, mentionedId: String, actor: EventActor) {
        self.postId = postId
        self.mentionedId = mentionedId
        self.actor = actor
    }
}

/// An event whose body is a ``PostActivity`` itself (no wrapper on the wire): `post.liked`,
/// `post.replied`, `post.reposted` differ only in their type.
public protocol PostActivityEvent: DomainEvent, Equatable {
    var activity: PostActivity { get }
    init(_ activity: PostActivity)
}

extension PostActivityEvent {
    public init(from decoder: any Decoder) throws { self.init(try PostActivity(from: decoder)) }
    public func encode(to encoder: any Encoder) throws { try activity.encode(to: encoder) }
}

/// `post.liked`.
public struct PostLiked: PostActivityEvent {
    public static let eventType: EventType = "post.liked"
    public let activity: PostActivity
    public init(_ activity: PostActivity) { self.activity = activity }
}

/// `post.replied`: `replyId` answers `postId`.
public struct PostReplied: PostActivityEvent {
    public static let eventType: EventType = "post.replied"
    public let activity: PostActivity
    public init(_ activity: PostActivity) { self.activity = activity }
}

/// `post.reposted`: a plain repost, or a quote (`replyId` is the quoting post).
public struct PostReposted: PostActivityEvent {
    public static let eventType: EventType = "post.reposted"
    public let activity: PostActivity
    public init(_ activity: PostActivity) { self.activity = activity }
}
