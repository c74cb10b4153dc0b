import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import ServiceHTTP

/// Writes resumable uploads: appends a PATCH's bytes at the durable offset (one writer per
/// upload), reads the type as soon as the first bytes are in, and at the last byte checks the
/// whole file's SHA-256 against the declared one and hands the file to ``MediaIntake``. A
/// refusal rejects the upload (its bytes go) and is answered with tus headers.
struct UploadAppender: Sendable {
    let store: MediaStore
    let files: UploadFiles
    let intake: MediaIntake
    let locks: UploadLocks
    let entropy: any Entropy

    /// Appends `body` at `offset` (the durable offset); returns the upload afterwards, with
    /// its media id when that was the last byte.
    func append(
        _ body: RequestBody, declaredLength: Int?, checksum header: String?, to record: UploadRecord, at offset: Int
    ) async throws -> UploadRecord {
        if let declaredLength, offset + declaredLength > record.length { throw Self.tooLong(record) }
        var checksum: UploadFiles.Checksum?
        if let header {
            guard let parsed = UploadFiles.Checksum(header: header) else {
                throw ServiceError.validation("`Upload-Checksum` must be `sha1` or `sha256` and a base64 digest.")
            }
            checksum = parsed
        }
        guard await locks.acquire(record.id) else { throw Self.busy }
        defer { Task { await locks.release(record.id) } }

        let newOffset: Int
        do {
            let store = self.store
            switch try await files.append(
                record.id, at: offset, length: record.length, body: body, checksum: checksum,
                checkpoint: { _ = try await store.recordOffset(record.id, offset: $0) })
            {
            case .appended(let end): newOffset = end
            case .tooLong: throw Self.tooLong(record)
            case .checksumMismatch:
                throw ServiceError(
                    .checksumMismatch, "The bytes do not match `Upload-Checksum`; nothing was appended.",
                    headers: Tus.headers())
            }
        } catch let interrupted as UploadInterrupted {
            _ = try? await store.recordOffset(record.id, offset: interrupted.offset)
            throw ServiceError(.malformedRequest, "The body ended early; resume from `Upload-Offset`.")
        }
        guard let current = try await store.recordOffset(record.id, offset: newOffset) else {
            throw ServiceError.notFound("Upload")
        }
        if offset < ContentSniffer.prefixLength, newOffset >= ContentSniffer.prefixLength || newOffset == record.length
        {
            try await checkType(of: current)
        }
        return newOffset == current.length ? try await complete(current) : current
    }

    /// Ends an upload that has not completed; its bytes go.
    func terminate(_ record: UploadRecord) async throws {
        guard await locks.acquire(record.id) else { throw Self.busy }
        defer { Task { await locks.release(record.id) } }
        guard try await store.move(record.id, to: .terminated) != nil else {
            throw ServiceError(.conflict, "The upload is complete; delete the media instead.", headers: Tus.headers())
        }
        files.remove(record.id)
    }

    // MARK: - Checks

    /// Reads the type from the first bytes: one a resumable upload accepts, and the declared one.
    @discardableResult
    private func checkType(of record: UploadRecord) async throws -> String {
        let prefix = try await files.prefix(record.id, count: ContentSniffer.prefixLength)
        do {
            return try MediaIntake.type(
                of: prefix, claimed: ContentSniffer.claimedType(record.filetype), accepted: ContentSniffer.uploadTypes)
        } catch let rejection as MediaRejection {
            try await reject(record, reason: rejection.reason)
            throw rejection.error(headers: Tus.headers())
        }
    }

    /// The last byte arrived: check the whole file, then make it a media object.
    private func complete(_ record: UploadRecord) async throws -> UploadRecord {
        guard let processing = try await store.move(record.id, to: .processing) else { return record }
        let type = try await checkType(of: processing)
        let sha256 = try await files.sha256(record.id, length: record.length)
        if let expected = record.expectedSha256, expected != sha256 {
            try await reject(processing, reason: "the file's SHA-256 is not the one declared")
            throw ServiceError(
                .checksumMismatch, "The file's SHA-256 is \(sha256), not the declared \(expected).",
                headers: Tus.headers())
        }
        do {
            _ = try await intake.admit(
                files.url(record.id), id: entropy.id(at: intake.clock.now()), owner: record.ownerId, type: type,
                sha256: sha256, byteSize: record.length, purpose: record.purpose
            ) { media in
                guard try await store.finish(record.id, media: media) != nil else {
                    throw ServiceError(.conflict, "The upload changed while it was completed.")
                }
            }
        } catch let rejection as MediaRejection {
            try await reject(processing, reason: rejection.reason)
            throw rejection.error(headers: Tus.headers())
        }
        return try await store.upload(id: record.id, owner: record.ownerId) ?? processing
    }

    /// Moves the upload to `rejected` with the reason its owner will read; its bytes go.
    private func reject(_ record: UploadRecord, reason: String) async throws {
        if record.state != .processing { try await store.move(record.id, to: .processing) }
        try await store.move(record.id, to: .rejected) { $0.rejectedReason = reason }
        files.remove(record.id)
    }

    static func tooLong(_ record: UploadRecord) -> ServiceError {
        ServiceError(
            .payloadTooLarge, "The upload is \(record.length) bytes; this would write past its end.",
            headers: Tus.headers())
    }

    static let busy = ServiceError(
        .conflict, "Another request is writing this upload; wait for it, then resume.", headers: Tus.headers())
}
