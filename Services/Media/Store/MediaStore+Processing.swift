import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Media processing's half of the state machine: `processing → ready | rejected`.
extension MediaStore {
    /// Ids of media still being processed, oldest first.
    func mediaInProcessing() async throws -> [String] {
        try await database.tracedRead { db in
            try String.fetchAll(
                db.cachedStatement(sql: "SELECT id FROM media WHERE status = 'processing' ORDER BY created_at"))
        }
    }

    /// Records processing's result, only if the media is still `processing` (a second run
    /// changes nothing): the media becomes `ready` with its processed copies, or `rejected`
    /// with the reason, the upload it came from follows, and the services that referenced it
    /// hear of it. A rejected media's bytes are deleted after the commit. Returns the record
    /// after, or nil when it was not in processing.
    func finishProcessing(
        _ id: String, at now: Date, blobs: BlobStore, outcome: Result<ProcessedCopies, MediaRejection>,
        held: ScreeningVerdict? = nil
    ) async throws -> MediaRecord? {
        try await database.tracedWrite { [outbox] db in
            guard var media = try MediaRecord.fetchOne(db, key: id), media.status == .processing else { return nil }
            media.processedAt = now
            let references = try Self.references(of: id, in: db)
            switch outcome {
            case .success(let copies):
                media.status = .ready
                copies.apply(to: &media)
                if let held {
                    // Screening holds it: moderation hears, the referencing services wait.
                    media.hold(held)
                    try Self.saveDescribed(&media, outbox: outbox, in: db)
                    if let event = media.heldEvent { try outbox.enqueue(event, in: db) }
                    return media
                }
                try Self.saveDescribed(&media, outbox: outbox, in: db)
                _ = try Self.moveUpload(of: id, to: .ready, in: db)
                if !references.isEmpty {
                    try outbox.enqueue(MediaReady(mediaId: id, ownerId: media.ownerId), to: references, in: db)
                }
            case .failure(let rejection):
                try Self.reject(
                    &media, reason: rejection.reason, references: references, blobs: blobs, outbox: outbox, in: db)
            }
            return try MediaRecord.fetchOne(db, key: id)
        }
    }

    /// Rejects `media` for `reason`: its upload follows, the services in `references` hear
    /// `media.rejected`, and its bytes go once that commits (the row keeps its hash as a record).
    static func reject(
        _ media: inout MediaRecord, reason: String, references: Set<ServiceName>, blobs: BlobStore, outbox: Outbox,
        in db: Database
    ) throws {
        let hashes = media.blobHashes
        media.status = .rejected
        media.rejectedReason = reason
        (media.displaySha256, media.thumbnailSha256, media.posterSha256) = (nil, nil, nil)
        try saveDescribed(&media, outbox: outbox, in: db)
        _ = try moveUpload(of: media.id, to: .rejected, in: db) { $0.rejectedReason = reason }
        if !references.isEmpty {
            try outbox.enqueue(
                MediaRejected(mediaId: media.id, ownerId: media.ownerId, reason: reason), to: references, in: db)
        }
        blobs.removeAfterCommit(try unused(hashes, in: db), in: db)
    }

    /// The services that referenced media `id` (they hear `media.ready` and `media.rejected`).
    static func references(of id: String, in db: Database) throws -> Set<ServiceName> {
        Set(
            try MediaReferenceRecord.filter(MediaReferenceRecord.Columns.mediaId == id).fetchAll(db)
                .compactMap { ServiceName(rawValue: $0.service) })
    }

    /// Moves the upload a media came from, if any, along the upload state machine.
    static func moveUpload(
        of mediaID: String, to state: UploadState, in db: Database, _ change: (inout UploadRecord) -> Void = { _ in }
    ) throws -> UploadRecord? {
        guard let upload = try UploadRecord.filter(UploadRecord.Columns.mediaId == mediaID).fetchOne(db) else {
            return nil
        }
        return try move(upload.id, to: state, in: db, change)
    }
}

/// The processed copies of a media object, stored as blobs.
struct ProcessedCopies: Sendable {
    var display: (sha256: String, type: String, size: Int)?
    var thumbnail: (sha256: String, size: Int)?
    var poster: (sha256: String, size: Int)?
    var width: Int?
    var height: Int?
    var placeholder: String?

    func apply(to media: inout MediaRecord) {
        (media.displaySha256, media.displayType, media.displaySize) = (display?.sha256, display?.type, display?.size)
        (media.thumbnailSha256, media.thumbnailSize) = (thumbnail?.sha256, thumbnail?.size)
        (media.posterSha256, media.posterSize) = (poster?.sha256, poster?.size)
        if media.width == nil { (media.width, media.height) = (width, height) }
        media.placeholder = placeholder
    }
}
