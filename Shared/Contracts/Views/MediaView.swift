import Foundation

/// What a photo or video is, for a screen that shows it.
public enum MediaKind: String, Codable, Sendable, CaseIterable {
    case photo
    case video
}

/// A photo or video as a list shows it: enough to lay the screen out before a byte of the image
/// arrives (`width`, `height`, `aspectRatio`, `placeholder`), and URLs a plain image loader can
/// fetch with no `Authorization` header. The URLs are signed for this media, this variant and
/// `expiresAt`, and appear only in the views of those allowed to see the media; they stay the
/// same for a while (see `expiresAt`), so a client's cache keeps working across pages.
public struct MediaView: Codable, Sendable, Equatable {
    public var id: String
    public var kind: MediaKind
    /// Only `ready` media has URLs; `processing` has its size and placeholder when known.
    public var status: MediaStatus
    public var width: Int?
    public var height: Int?
    /// `width / height`, to three decimals.
    public var aspectRatio: Double?
    /// Videos: the duration in milliseconds.
    public var durationMs: Int?
    /// A BlurHash (4×3 components) of the image or the video's first frame.
    public var placeholder: String?
    /// A 300×300 JPEG, centre-cropped.
    public var thumbnailURL: String?
    /// The photo as everyone but its owner sees it (no metadata), or a video's first frame.
    public var displayURL: String?
    /// Videos: the first frame as a JPEG, when the server made one.
    public var posterURL: String?
    /// Videos: the video itself.
    public var playbackURL: String?
    /// When the URLs stop working; ask again after it.
    public var expiresAt: Date?

    public init(
        id: String, kind: MediaKind, status: MediaStatus, width: Int? = nil, height: Int? = nil,
        aspectRatio: Double? = nil, durationMs: Int? = nil, placeholder: String? = nil, thumbnailURL: String? = nil,
        displayURL: String? = nil, posterURL: String? = nil, playbackURL: String? = nil, expiresAt: Date? = nil
    ) {
        self.id = id
        self.kind = kind
        self.status = status
        self.width = width
        self.height = height
        self.aspectRatio = aspectRatio
        self.durationMs = durationMs
        self.placeholder = placeholder
        self.thumbnailURL = thumbnailURL
        self.displayURL = displayURL
        self.posterURL = posterURL
        self.playbackURL = playbackURL
        self.expiresAt = expiresAt
    }
}

/// The sizes of a media object a view can link to, each behind its own signed URL.
public enum MediaVariant: String, Codable, Sendable, CaseIterable {
    case thumbnail
    case display
    case poster
    case playback
}
