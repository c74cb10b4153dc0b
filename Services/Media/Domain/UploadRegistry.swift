import Contracts
import Foundation
import HTTPTypes
import ServiceHTTP

/// Resumable uploads as both protocols see them, tus (``UploadsController``) and the IETF draft
/// (``ResumableUploadsController``): the same records, files, limits and quotas.
struct UploadRegistry: Sendable {
    let store: MediaStore
    let files: UploadFiles
    let settings: MediaSettings
    let clock: any WallClock
    let entropy: any Entropy

    /// Starts an upload: the size against the purpose's limit (413 before a byte is written),
    /// the owner's quotas (429: uploads per hour, bytes declared and unsent), then an empty file
    /// and its record, which expires after `media.uploadTtlHours`.
    ///
    /// - Parameter headers: what a refusal carries (each protocol names itself in its answers).
    func start(owner: String, length: Int, metadata: UploadMetadata, headers: HTTPFields) async throws -> UploadRecord {
        let limit = metadata.limit(photo: settings.maxPhotoBytes, video: settings.maxVideoBytes)
        guard length <= limit else {
            throw ServiceError(
                .payloadTooLarge, "A \(metadata.purpose.rawValue) upload of this type is at most \(limit) bytes.",
                headers: headers)
        }
        let now = clock.now()
        let record = UploadRecord(
            id: entropy.id(at: now), ownerId: owner, purpose: metadata.purpose,
            filename: metadata.filename, filetype: metadata.filetype, expectedSha256: metadata.sha256, length: length,
            offset: 0, state: .pendingUpload, rejectedReason: nil, mediaId: nil, createdAt: now,
            expiresAt: now.addingTimeInterval(settings.uploadTTL))
        try files.create(record.id)
        do {
            try await store.createUpload(
                record, perHour: settings.uploadsPerHour, inFlightBytes: settings.inFlightBytes)
        } catch {
            files.remove(record.id)
            throw error
        }
        return record
    }

    /// The owner's upload that still takes requests: someone else's or a terminated one is 404,
    /// an expired one 410 (and its bytes go now if the sweeper has not been by).
    func live(_ id: String, owner: String, headers: HTTPFields) async throws -> UploadRecord {
        guard var record = try await store.upload(id: id, owner: owner), record.state != .terminated else {
            throw ServiceError(.notFound, "Upload not found.", headers: headers)
        }
        if record.state.acceptsBytes, record.expiresAt <= clock.now() {
            record = try await store.move(id, to: .expired) ?? record
            files.remove(id)
        }
        guard record.state != .expired else {
            throw ServiceError(.uploadExpired, "The upload expired; start a new one.", headers: headers)
        }
        return record
    }
}
