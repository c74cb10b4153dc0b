import Contracts
import Foundation
import GRDB
import ServiceKit

/// A row of `upload`: one tus upload.
struct UploadRecord: ServiceRecord {
    static let databaseTableName = "upload"

    var id: String
    var ownerId: String
    var purpose: UploadPurpose
    var filename: String?
    /// The type the client declared (`filetype` metadata); checked against the bytes.
    var filetype: String?
    /// Lowercase hex SHA-256 the client declared for the whole file, checked at completion.
    var expectedSha256: String?
    var length: Int
    /// Bytes durably on disk.
    var offset: Int
    var state: UploadState
    var rejectedReason: String?
    var mediaId: String?
    var createdAt: Date
    var expiresAt: Date

    enum Columns: String, ColumnExpression {
        case id, purpose, filename, filetype, length, offset, state
        case ownerId = "owner_id"
        case expectedSha256 = "expected_sha256"
        case rejectedReason = "rejected_reason"
        case mediaId = "media_id"
        case createdAt = "created_at"
        case expiresAt = "expires_at"
    }

    var status: UploadStatus {
        UploadStatus(
            id: id, purpose: purpose, state: state, offset: offset, length: length, expiresAt: expiresAt,
            mediaId: mediaId, rejectedReason: rejectedReason)
    }
}

extension UploadPurpose: DatabaseValueConvertible {}
extension UploadState: DatabaseValueConvertible {}
