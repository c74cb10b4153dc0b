import Contracts
import Foundation
import GRDB

/// A row of `upload`: one tus upload.
struct UploadRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "upload"

    var id: String
    var ownerID: String
    var purpose: UploadPurpose
    var filename: String?
    /// The type the client declared (`filetype` metadata); checked against the bytes.
    var filetype: String?
    /// Lowercase hex SHA-256 the client declared for the whole file, checked at completion.
    var expectedSHA256: String?
    var length: Int
    /// Bytes durably on disk.
    var offset: Int
    var state: UploadState
    var rejectedReason: String?
    var mediaID: String?
    var createdAt: Date
    var expiresAt: Date

    enum CodingKeys: String, CodingKey {
        case id, purpose, filename, filetype, length, offset, state
        case ownerID = "owner_id"
        case expectedSHA256 = "expected_sha256"
        case rejectedReason = "rejected_reason"
        case mediaID = "media_id"
        case createdAt = "created_at"
        case expiresAt = "expires_at"
    }

    var status: UploadStatus {
        UploadStatus(
            id: id, purpose: purpose, state: state, offset: offset, length: length, expiresAt: expiresAt,
            mediaId: mediaID, rejectedReason: rejectedReason)
    }
}

extension UploadPurpose: DatabaseValueConvertible {}
extension UploadState: DatabaseValueConvertible {}
