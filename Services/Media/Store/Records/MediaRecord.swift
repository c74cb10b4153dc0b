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
    }

    var object: MediaObject {
        MediaObject(
            id: id, contentType: contentType, byteSize: byteSize, sha256: sha256, status: status,
            visibility: visibility, createdAt: createdAt, durationMs: durationMs, width: width, height: height,
            videoCodec: videoCodec)
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
