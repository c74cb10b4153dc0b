import Foundation

/// StreakSnap's four share-card backgrounds.
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

    enum CodingKeys: String, CodingKey { case style }

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

    enum CodingKeys: String, CodingKey { case ownerId, style, count, names, since, watermark }

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
    public var mediaId: String
    public var style: ShareCardStyle
    public var count: Int
    public var width: Int
    public var height: Int
    /// Path and query, relative to the gateway; works without a token until `expiresAt`.
    public var url: String
    public var expiresAt: Date

    enum CodingKeys: String, CodingKey { case mediaId, style, count, width, height, url, expiresAt }

    public init(
        mediaId: String, style: ShareCardStyle, count: Int, width: Int, height: Int, url: String, expiresAt: Date
    ) {
        self.mediaId = mediaId
        self.style = style
        self.count = count
        self.width = width
        self.height = height
        self.url = url
        self.expiresAt = expiresAt
    }
}
