import Foundation

/// The four share-card backgrounds.
public enum ShareCardStyle: String, Codable, Sendable, CaseIterable {
    /// #FF6B35 → #FF3D00 (the default).
    case orange
    /// #7C3AED → #4F46E5.
    case purple
    /// #22C55E → #166534.
    case green
    /// #1C1C1E → #0A0A0A.
    case dark
}

/// `POST /v1/streaks/{id}/share-card`: a milestone card of one of your streaks.
public struct ShareCardCreate: Codable, Sendable, Equatable {
    /// Default `orange`.
    public var style: ShareCardStyle?

    public init(style: ShareCardStyle? = nil) {
        self.style = style
    }
}

/// `POST /internal/share-cards` (streak → media): render a card and keep it as the owner's media.
public struct ShareCardRender: Codable, Sendable, Equatable {
    public var ownerId: String
    public var style: ShareCardStyle
    public var count: Int
    /// Both of the pair, the owner first (display names).
    public var names: [String]
    /// The first day of the run, `YYYY-MM-DD`.
    public var since: String?
    /// The text at the bottom (the app's name).
    public var watermark: String

    public init(
        ownerId: String, style: ShareCardStyle, count: Int, names: [String], since: String?, watermark: String
    ) {
        self.ownerId = ownerId
        self.style = style
        self.count = count
        self.names = names
        self.since = since
        self.watermark = watermark
    }
}

/// A rendered share card: a 1080×1920 PNG kept as the owner's media, with a presigned GET URL.
public struct ShareCard: Codable, Sendable, Equatable {
    /// The card as streak keeps it, to mark shared with `PUT /v1/share-cards/{id}/shared`
    /// (absent in media's answer to streak).
    public var id: String?
    public var mediaId: String
    public var style: ShareCardStyle
    public var count: Int
    public var width: Int
    public var height: Int
    /// Path and query, relative to the gateway; works without a token until `expiresAt`.
    public var url: String
    public var expiresAt: Date

    public init(
        id: String? = nil, mediaId: String, style: ShareCardStyle, count: Int, width: Int, height: Int, url: String,
        expiresAt: Date
    ) {
        self.id = id
        self.mediaId = mediaId
        self.style = style
        self.count = count
        self.width = width
        self.height = height
        self.url = url
        self.expiresAt = expiresAt
    }
}

/// Where a card went (an app's share buttons; `general` for save, copy link and the rest).
public enum SharePlatform: String, Codable, Sendable, CaseIterable {
    case instagram
    case tiktok
    case general
}

/// `PUT /v1/share-cards/{id}/shared`: the user shared the card (the seed's analytics).
public struct ShareCardShared: Codable, Sendable, Equatable {
    public var platform: SharePlatform

    public init(platform: SharePlatform) {
        self.platform = platform
    }
}

/// A card someone made of one of their streaks, and where and when they last shared it.
public struct ShareCardShare: Codable, Sendable, Equatable {
    public var id: String
    public var streakId: String
    public var mediaId: String
    public var style: ShareCardStyle
    /// The streak's count on the card.
    public var count: Int
    /// nil until shared; the latest platform after that.
    public var platform: SharePlatform?
    public var sharedAt: Date?
    public var createdAt: Date

    public init(
        id: String, streakId: String, mediaId: String, style: ShareCardStyle, count: Int, platform: SharePlatform?,
        sharedAt: Date?, createdAt: Date
    ) {
        self.id = id
        self.streakId = streakId
        self.mediaId = mediaId
        self.style = style
        self.count = count
        self.platform = platform
        self.sharedAt = sharedAt
        self.createdAt = createdAt
    }
}
