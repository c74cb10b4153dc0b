import Foundation

/// Who may see a media object. It is `private` to its owner until a service that references
/// it (a post, say) makes it `public` with a ``MediaAttached`` event.
public enum MediaVisibility: String, Codable, Sendable, CaseIterable {
    case `private`
    case `public`
}

/// Where a media object is in its life: `processing → ready | rejected`, no other moves.
/// Photos are processed while their upload is answered (so they are `ready`, or refused);
/// videos are checked then too, and their poster frame and metadata-free copy are made just
/// after, so a video may be `processing` for a few seconds. `media.ready` and `media.rejected`
/// tell the services that referenced it meanwhile.
public enum MediaStatus: String, Codable, Sendable, CaseIterable {
    case processing
    case ready
    case rejected
    /// Screening held it for a moderator: only its owner reads it until one releases it
    /// (`ready`) or removes it (`rejected`).
    case held
}

/// A media object as its owner sees it: `POST /v1/media`, `GET /v1/media/{id}`.
public struct MediaObject: Codable, Sendable, Equatable {
    public var id: String
    /// The type read from the bytes (`image/jpeg`, `image/png`, `image/heic`, `image/webp`,
    /// `video/mp4`, `video/quicktime`).
    public var contentType: String
    public var byteSize: Int
    /// Lowercase hex SHA-256 of the bytes.
    public var sha256: String
    public var status: MediaStatus
    public var visibility: MediaVisibility
    public var createdAt: Date
    /// Videos: the duration in milliseconds, from the container (`mvhd`).
    public var durationMs: Int?
    /// Videos: the video track's dimensions (`tkhd`).
    public var width: Int?
    public var height: Int?
    /// Videos: the video track's codec (`avc1`, `hvc1`, …).
    public var videoCodec: String?
    /// Why processing refused it (`rejected` only).
    public var rejectedReason: String?
    /// A 300×300 JPEG, once processed.
    public var thumbnailUrl: String?
    /// Videos (when the server has ffmpeg): the first frame as a JPEG.
    public var posterUrl: String?

    enum CodingKeys: String, CodingKey {
        case id, contentType, byteSize, sha256, status, visibility, createdAt, durationMs, width, height, videoCodec
        case rejectedReason, thumbnailUrl, posterUrl
    }

    public init(
        id: String, contentType: String, byteSize: Int, sha256: String, status: MediaStatus,
        visibility: MediaVisibility, createdAt: Date, durationMs: Int? = nil, width: Int? = nil, height: Int? = nil,
        videoCodec: String? = nil, rejectedReason: String? = nil, thumbnailUrl: String? = nil,
        posterUrl: String? = nil
    ) {
        self.id = id
        self.contentType = contentType
        self.byteSize = byteSize
        self.sha256 = sha256
        self.status = status
        self.visibility = visibility
        self.createdAt = createdAt
        self.durationMs = durationMs
        self.width = width
        self.height = height
        self.videoCodec = videoCodec
        self.rejectedReason = rejectedReason
        self.thumbnailUrl = thumbnailUrl
        self.posterUrl = posterUrl
    }
}

/// `GET /internal/media/{id}` on media: what another service checks before referencing a
/// media object (whose it is, whether it is ready).
public struct MediaSummary: Codable, Sendable, Equatable {
    public var id: String
    public var ownerId: String
    public var contentType: String
    public var status: MediaStatus
    /// Videos: the duration in milliseconds, from the container (known while still processing).
    public var durationMs: Int?
    /// What views show of it, as its latest `media.described` says: a service that references
    /// it keeps this in its copy in the same transaction, so its views need not wait for the
    /// event.
    public var described: MediaDescribed?

    public init(
        id: String, ownerId: String, contentType: String, status: MediaStatus, durationMs: Int? = nil,
        described: MediaDescribed? = nil
    ) {
        self.described = described
        self.id = id
        self.ownerId = ownerId
        self.contentType = contentType
        self.status = status
        self.durationMs = durationMs
    }
}

/// `media.attached`: a service now references a media object and says who may see it:
/// everyone signed in (`public`), or its owner and the `readers` named here (a snap's streak
/// partner, say). Readers and visibility only widen.
public struct MediaAttached: DomainEvent, Equatable {
    public static let eventType: EventType = "media.attached"
    public var mediaId: String
    public var ownerId: String
    public var visibility: MediaVisibility
    /// What references it, such as `post` or `snap`.
    public var referenceType: String
    public var referenceId: String
    /// Users besides the owner who may now read a `private` object.
    public var readers: [String]?

    public init(
        mediaId: String, ownerId: String, visibility: MediaVisibility, referenceType: String, referenceId: String,
        readers: [String]? = nil
    ) {
        self.mediaId = mediaId
        self.ownerId = ownerId
        self.visibility = visibility
        self.referenceType = referenceType
        self.referenceId = referenceId
        self.readers = readers
    }
}

/// `media.ready`: a media object a service referenced (through ``MediaAttached``) finished
/// processing and can be shown. Sent only to the services that referenced it.
public struct MediaReady: DomainEvent, Equatable {
    public static let eventType: EventType = "media.ready"
    public var mediaId: String
    public var ownerId: String

    public init(mediaId: String, ownerId: String) {
        self.mediaId = mediaId
        self.ownerId = ownerId
    }
}

/// `media.held` (media → moderation): screening scored a new photo or video at or above
/// `media.screening.holdThreshold`; it waits in the moderators' queue instead of being shown.
public struct MediaHeld: DomainEvent, Equatable {
    public static let eventType: EventType = "media.held"
    public var mediaId: String
    public var ownerId: String
    /// 0 to 1, from the classifier.
    public var score: Double
    public var labels: [String]

    public init(mediaId: String, ownerId: String, score: Double, labels: [String]) {
        self.mediaId = mediaId
        self.ownerId = ownerId
        self.score = score
        self.labels = labels
    }
}

/// `media.rejected`: a media object a service referenced was refused by processing (it
/// cannot be decoded, say); its bytes are gone. Sent only to the services that referenced it.
public struct MediaRejected: DomainEvent, Equatable {
    public static let eventType: EventType = "media.rejected"
    public var mediaId: String
    public var ownerId: String
    public var reason: String

    public init(mediaId: String, ownerId: String, reason: String) {
        self.mediaId = mediaId
        self.ownerId = ownerId
        self.reason = reason
    }
}

/// `media.detached`: a service no longer references a media object (a deleted post). Once
/// nothing references it, only its owner may read it again.
public struct MediaDetached: DomainEvent, Equatable {
    public static let eventType: EventType = "media.detached"
    public var mediaId: String
    public var ownerId: String
    public var referenceType: String
    public var referenceId: String

    public init(mediaId: String, ownerId: String, referenceType: String, referenceId: String) {
        self.mediaId = mediaId
        self.ownerId = ownerId
        self.referenceType = referenceType
        self.referenceId = referenceId
    }
}

/// `media.sharing_ended`: the two users stopped sharing through the sending service (an
/// unfriending or a block ended their streak). Neither may read the other's private media any
/// more where the sender named them a reader; what other services shared stays shared.
public struct MediaSharingEnded: DomainEvent, Equatable {
    public static let eventType: EventType = "media.sharing_ended"
    public var userIds: [String]

    public init(userIds: [String]) {
        self.userIds = userIds
    }
}

/// `media.withdrawn`: the sending service takes back objects it had media make for `ownerId`
/// (share cards naming someone who deleted their account). Media deletes those of the listed
/// objects that are the owner's and that the sender made; their bytes go once nothing else
/// uses them.
public struct MediaWithdrawn: DomainEvent, Equatable {
    public static let eventType: EventType = "media.withdrawn"
    public var ownerId: String
    public var mediaIds: [String]

    public init(ownerId: String, mediaIds: [String]) {
        self.ownerId = ownerId
        self.mediaIds = mediaIds
    }
}
