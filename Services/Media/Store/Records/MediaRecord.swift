import Contracts
import Foundation
import GRDB

/// A row of `media`.
struct MediaRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "media"

    var id: String
    var ownerID: String
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
    var displaySHA256: String? = nil
    var displayType: String? = nil
    var displaySize: Int? = nil
    /// 300×300 JPEG.
    var thumbnailSHA256: String? = nil
    var thumbnailSize: Int? = nil
    /// Videos, with ffmpeg: the first frame as a JPEG.
    var posterSHA256: String? = nil
    var posterSize: Int? = nil
    var rejectedReason: String? = nil
    var processedAt: Date? = nil

    enum CodingKeys: String, CodingKey {
        case id
        case ownerID = "owner_id"
        case contentType = "content_type"
        case byteSize = "byte_size"
        case sha256, status, visibility
        case createdAt = "created_at"
        case durationMs = "duration_ms"
        case width, height
        case videoCodec = "video_codec"
        case displaySHA256 = "display_sha256"
        case displayType = "display_type"
        case displaySize = "display_size"
        case thumbnailSHA256 = "thumbnail_sha256"
        case thumbnailSize = "thumbnail_size"
        case posterSHA256 = "poster_sha256"
        case posterSize = "poster_size"
        case rejectedReason = "rejected_reason"
        case processedAt = "processed_at"
    }

    /// Records what the container says about a video.
    mutating func setFacts(_ video: VideoInfo) {
        durationMs = Int((video.duration * 1000).rounded())
        (width, height, videoCodec) = (video.width, video.height, video.videoCodec)
    }

    /// Every blob this media keeps alive.
    var blobHashes: [String] {
        [sha256, displaySHA256, thumbnailSHA256, posterSHA256].compactMap { $0 }
    }

    var object: MediaObject {
        MediaObject(
            id: id, contentType: contentType, byteSize: byteSize, sha256: sha256, status: status,
            visibility: visibility, createdAt: createdAt, durationMs: durationMs, width: width, height: height,
            videoCodec: videoCodec, rejectedReason: rejectedReason,
            thumbnailUrl: thumbnailSHA256.map { _ in "/v1/media/\(id)/thumbnail" },
            posterUrl: posterSHA256.map { _ in "/v1/media/\(id)/poster" })
    }

    var summary: MediaSummary {
        MediaSummary(id: id, ownerId: ownerID, contentType: contentType, status: status)
    }

    /// Whether `userID` may see it: its owner always, others once it is public.
    func isVisible(to userID: String) -> Bool {
        ownerID == userID || visibility == .public
    }
}

extension MediaStatus: DatabaseValueConvertible {}
extension MediaVisibility: DatabaseValueConvertible {}
