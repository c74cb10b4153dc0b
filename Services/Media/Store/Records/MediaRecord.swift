import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A row of `media`.
struct MediaRecord: ServiceRecord {
    static let databaseTableName = "media"

    var id: String
    var ownerId: String
    var contentType: String
    var byteSize: Int
    /// Lowercase hex; also the blob's name.
    var sha256: String
    var status: MediaStatus
    var visibility: MediaVisibility
    var createdAt: Date
    var durationMs: Int? = nil
    var width: Int? = nil
    var height: Int? = nil
    var videoCodec: String? = nil
    /// The copy without metadata that everyone but the owner downloads (images always;
    /// videos when ffmpeg is installed). Nil: the original is served.
    var displaySha256: String? = nil
    var displayType: String? = nil
    var displaySize: Int? = nil
    /// 300×300 JPEG.
    var thumbnailSha256: String? = nil
    var thumbnailSize: Int? = nil
    /// Videos, with ffmpeg: the first frame as a JPEG.
    var posterSha256: String? = nil
    var posterSize: Int? = nil
    var rejectedReason: String? = nil
    var processedAt: Date? = nil
    /// Screening's score and labels (comma-separated) when it held the media.
    var screeningScore: Double? = nil
    var screeningLabels: String? = nil
    /// A BlurHash of the photo or the video's first frame (``BlurHash``).
    var placeholder: String? = nil
    /// The revision of the last `media.described` sent for it.
    var descriptionRevision = 0

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case id
        case ownerId = "owner_id"
    }

    /// Records what the container says about a video.
    mutating func setFacts(_ video: VideoInfo) {
        durationMs = Int((video.duration * 1000).rounded())
        (width, height, videoCodec) = (video.width, video.height, video.videoCodec)
    }

    /// Held by screening's `verdict` instead of published.
    mutating func hold(_ verdict: ScreeningVerdict) {
        status = .held
        (screeningScore, screeningLabels) = (verdict.score, verdict.labels.joined(separator: ","))
    }

    /// `media.held` for this media, once it is held.
    var heldEvent: MediaHeld? {
        guard status == .held else { return nil }
        return MediaHeld(
            mediaId: id, ownerId: ownerId, score: screeningScore ?? 1,
            labels: (screeningLabels ?? "").split(separator: ",").map(String.init))
    }

    var kind: MediaKind { contentType.hasPrefix("video/") ? .video : .photo }

    /// The variants a view URL can ask for, with the blob and type each serves: a photo's
    /// display copy (the original when there is none), a video's first frame and the video
    /// (its copy without metadata when ffmpeg made one).
    func blob(for variant: MediaVariant) -> (sha256: String, contentType: String, byteSize: Int)? {
        switch (variant, kind) {
        case (.thumbnail, _):
            return thumbnailSha256.map { ($0, "image/jpeg", thumbnailSize ?? 0) }
        case (.display, .photo):
            return (displaySha256 ?? sha256, displayType ?? contentType, displaySize ?? byteSize)
        case (.display, .video), (.poster, .video):
            return posterSha256.map { ($0, "image/jpeg", posterSize ?? 0) }
        case (.playback, .video):
            return (displaySha256 ?? sha256, displayType ?? contentType, displaySize ?? byteSize)
        case (.poster, .photo), (.playback, .photo):
            return nil
        }
    }

    /// What views show of it (``MediaDescribed``), at its current revision.
    var describedEvent: MediaDescribed {
        MediaDescribed(
            mediaId: id, ownerId: ownerId, kind: kind, status: status, width: width, height: height,
            durationMs: durationMs, placeholder: placeholder,
            variants: status == .rejected ? [] : MediaVariant.allCases.filter { blob(for: $0) != nil },
            revision: descriptionRevision)
    }

    /// Every blob this media keeps alive.
    var blobHashes: [String] {
        [sha256, displaySha256, thumbnailSha256, posterSha256].compactMap { $0 }
    }

    var object: MediaObject {
        MediaObject(
            id: id, contentType: contentType, byteSize: byteSize, sha256: sha256, status: status,
            visibility: visibility, createdAt: createdAt, durationMs: durationMs, width: width, height: height,
            videoCodec: videoCodec, rejectedReason: rejectedReason,
            thumbnailUrl: thumbnailSha256.map { _ in "/v1/media/\(id)/thumbnail" },
            posterUrl: posterSha256.map { _ in "/v1/media/\(id)/poster" })
    }

    var summary: MediaSummary {
        MediaSummary(id: id, ownerId: ownerId, contentType: contentType, status: status, durationMs: durationMs)
    }

    /// Whether `userID` may see it: its owner always, others once it is public.
    func isVisible(to userID: String) -> Bool {
        ownerId == userID || visibility == .public
    }
}
