import Foundation

/// `profile.changed` (auth → every service that shows people): what lists show of a person,
/// sent when an account is made, when its name, username or avatar changes, and when it is
/// deleted. `revision` grows with every change of the account; a copy keeps the highest it has
/// seen, so an old one arriving late (or a page of the export) changes nothing.
public struct ProfileChanged: DomainEvent, Equatable {
    public static let eventType: EventType = "profile.changed"
    public var userId: String
    public var username: String?
    public var displayName: String
    /// The avatar's media id (a photo of theirs; its view comes from the media copy).
    public var avatarMediaId: String?
    public var deleted: Bool
    public var revision: Int

    public init(
        userId: String, username: String?, displayName: String, avatarMediaId: String?, deleted: Bool = false,
        revision: Int
    ) {
        self.userId = userId
        self.username = username
        self.displayName = displayName
        self.avatarMediaId = avatarMediaId
        self.deleted = deleted
        self.revision = revision
    }
}

/// `media.described` (media → every service that shows media): what views show of a media
/// object, sent when it is stored, processed, held, released, rejected or removed. Which
/// variants exist says which URLs a view can carry. `revision` as for ``ProfileChanged``.
public struct MediaDescribed: DomainEvent, Equatable {
    public static let eventType: EventType = "media.described"
    public var mediaId: String
    public var ownerId: String
    public var kind: MediaKind
    public var status: MediaStatus
    public var width: Int?
    public var height: Int?
    public var durationMs: Int?
    public var placeholder: String?
    public var variants: [MediaVariant]
    public var revision: Int

    public init(
        mediaId: String, ownerId: String, kind: MediaKind, status: MediaStatus, width: Int? = nil,
        height: Int? = nil, durationMs: Int? = nil, placeholder: String? = nil, variants: [MediaVariant] = [],
        revision: Int
    ) {
        self.mediaId = mediaId
        self.ownerId = ownerId
        self.kind = kind
        self.status = status
        self.width = width
        self.height = height
        self.durationMs = durationMs
        self.placeholder = placeholder
        self.variants = variants
        self.revision = revision
    }
}

/// `GET /internal/media/url-keys` on media: the keys view URLs are signed with. Services fetch
/// them (over mutual TLS) and sign with `current`; media checks a URL against any key still
/// listed, so a key can be replaced without breaking the URLs given out under the last one.
public struct MediaURLKeys: Codable, Sendable, Equatable {
    public var current: String
    public var keys: [MediaURLKey]

    public init(current: String, keys: [MediaURLKey]) {
        self.current = current
        self.keys = keys
    }
}

/// One view-URL signing key: its id and its 32 secret bytes (base64url).
public struct MediaURLKey: Codable, Sendable, Equatable {
    public var kid: String
    public var secret: String

    public init(kid: String, secret: String) {
        self.kid = kid
        self.secret = secret
    }
}
