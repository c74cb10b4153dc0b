import Foundation

/// What a reader's app tells of a post it showed.
public enum FeedSignalKind: String, Codable, Sendable, CaseIterable {
    /// Shown on screen: not offered in For You again today.
    case seen
    /// Looked at for `dwellMs`.
    case dwell
    /// Scrolled past quickly: not offered again today, and the author counts a little less.
    case skip
    /// Opened (the thread, the link, the photo).
    case open
    /// "Not interested": never offered again, and the author counts less.
    case hide
}

/// One signal; `id` is the app's own, so a batch sent twice counts once.
public struct FeedSignal: Codable, Sendable, Equatable {
    public var id: String
    public var postId: String
    public var kind: FeedSignalKind
    /// For `dwell`: 0 to 600,000 ms.
    public var dwellMs: Int?

    public init(id: String, postId: String, kind: FeedSignalKind, dwellMs: Int? = nil) {
        self.id = id
        self.postId = postId
        self.kind = kind
        self.dwellMs = dwellMs
    }
}

/// `POST /v1/feed/signals`: up to 100 signals.
public struct FeedSignalBatch: Codable, Sendable {
    public var signals: [FeedSignal]

    public init(signals: [FeedSignal]) { self.signals = signals }
}

/// What `POST /v1/feed/signals` took: new ones, and ones it had already.
public struct FeedSignalReceipt: Codable, Sendable, Equatable {
    public var accepted: Int
    public var duplicates: Int

    public init(accepted: Int, duplicates: Int) {
        self.accepted = accepted
        self.duplicates = duplicates
    }
}

/// One item of `GET /v1/feed/for-you`: the post, why it was picked, and for an operator who
/// asks (`debug=true`, admin), each factor of its score.
public struct ForYouItem: Codable, Sendable, Equatable {
    public var post: Post
    public var reasons: [String]
    public var debug: ForYouDebug?

    public init(post: Post, reasons: [String], debug: ForYouDebug? = nil) {
        self.post = post
        self.reasons = reasons
        self.debug = debug
    }
}

/// A For You score and its factors: `score = (1 + engagement) × decay × sourceWeight ×
/// affinityWeight × jitter`.
public struct ForYouDebug: Codable, Sendable, Equatable {
    public var score: Double
    /// `followed`, `follows_of_follows` or `popular`.
    public var source: String
    /// ln(1 + likes + 2 × replies + 3 × reposts).
    public var engagement: Double
    /// 0.5 per 12 hours of age.
    public var decay: Double
    public var sourceWeight: Double
    public var affinity: Double
    public var affinityWeight: Double
    /// 1 to 1.05, fixed by the seed and the post.
    public var jitter: Double

    enum CodingKeys: String, CodingKey {
        case score, source, engagement, decay, sourceWeight, affinity, affinityWeight, jitter
    }

    public init(
        score: Double, source: String, engagement: Double, decay: Double, sourceWeight: Double, affinity: Double,
        affinityWeight: Double, jitter: Double
    ) {
        self.score = score
        self.source = source
        self.engagement = engagement
        self.decay = decay
        self.sourceWeight = sourceWeight
        self.affinity = affinity
        self.affinityWeight = affinityWeight
        self.jitter = jitter
    }
}
