import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

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

    /// The columns queries name.
    enum Columns: String, ColumnExpression {
        case id
        case ownerId = "owner_id"
        case mediaId = "media_id"
        case createdAt = "created_at"
    }

    var status: UploadStatus {
        UploadStatus(
            id: id, purpose: purpose, state: state, offset: offset, length: length, expiresAt: expiresAt,
            mediaId: mediaId, rejectedReason: rejectedReason)
    }
}

extension UploadPurpose: DatabaseValueConvertible {}
extension UploadState: DatabaseValueConvertible {}
