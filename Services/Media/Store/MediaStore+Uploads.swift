import Contracts
import Foundation
import GRDB
import HTTPTypes
import ServiceHTTP
import ServiceStore

/// Resumable uploads and their state machine.
extension MediaStore {
    /// Records a new upload unless the owner's quotas refuse it (429, checked in the same
    /// transaction, so two creations at once cannot both slip under a limit).
    func createUpload(_ upload: UploadRecord, perHour: Int, inFlightBytes: Int) async throws {
        try await database.tracedWrite { db in
            typealias Columns = UploadRecord.Columns
            let policy = RatePolicy(name: "uploads", limit: perHour, window: 3600)
            let recent = try UploadRecord.filter(
                Columns.ownerId == upload.ownerId && Columns.createdAt > upload.createdAt.addingTimeInterval(-3600)
            ).select(Columns.createdAt, as: Date.self).fetchAll(db)
            let decision = policy.decide(after: recent, now: upload.createdAt)
            guard decision.allowed else {
                throw ServiceError.rateLimited(
                    "At most \(perHour) uploads an hour.", policy: policy, decision: decision)
            }
            let pending =
                try Int.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT coalesce(sum(length - "offset"), 0) FROM upload
                            WHERE owner_id = ? AND state IN ('pending_upload', 'uploading')
                            """), arguments: [upload.ownerId]) ?? 0
            guard pending + upload.length <= inFlightBytes else {
                throw ServiceError(
                    .rateLimitExceeded, "Finish or end unfinished uploads first (at most \(inFlightBytes) bytes).",
                    headers: [.retryAfter: "60"])
            }
            try upload.insert(db)
        }
    }

    /// The owner's upload; someone else's is nil, as if it did not exist.
    func upload(id: String, owner: String) async throws -> UploadRecord? {
        try await database.tracedRead { db in
            try UploadRecord.filter(key: id).filter(UploadRecord.Columns.ownerId == owner).fetchOne(db)
        }
    }

    /// Moves an upload to `state` (and applies `change`), only along the state machine's
    /// edges; returns the record after, or nil when the move is not allowed from its state now.
    @discardableResult
    func move(
        _ id: String, to state: UploadState, _ change: @escaping @Sendable (inout UploadRecord) -> Void = { _ in }
    ) async throws -> UploadRecord? {
        try await database.tracedWrite { db in try Self.move(id, to: state, in: db, change) }
    }

    static func move(
        _ id: String, to state: UploadState, in db: Database, _ change: (inout UploadRecord) -> Void = { _ in }
    ) throws -> UploadRecord? {
        guard var upload = try UploadRecord.fetchOne(db, key: id),
            upload.state == state || upload.state.next.contains(state)
        else { return nil }
        upload.state = state
        change(&upload)
        try upload.update(db)
        return upload
    }

    /// Records the durable offset after a PATCH.
    func recordOffset(_ id: String, offset: Int) async throws -> UploadRecord? {
        try await move(id, to: .uploading) { $0.offset = offset }
    }

    /// Finishes an upload: its media row, in one transaction with the move to `ready` (or,
    /// for media still processing, the media id on the upload, which stays in `processing`
    /// until the media is done).
    func finish(_ id: String, media: MediaRecord) async throws -> UploadRecord? {
        try await database.tracedWrite { [outbox] db in
            try Self.insert(media, outbox: outbox, in: db)
            return try Self.move(id, to: media.status == .ready ? .ready : .processing, in: db) {
                $0.mediaId = media.id
            }
        }
    }

    /// Uploads whose time ran out while they still took bytes: marked expired, ids returned
    /// so their files can go.
    func expireUploads(now: Date) async throws -> [String] {
        try await database.tracedWrite { db in
            let ids = try String.fetchAll(
                db.cachedStatement(
                    sql: "SELECT id FROM upload WHERE state IN ('pending_upload', 'uploading') AND expires_at <= ?"),
                arguments: [now])
            for id in ids { _ = try Self.move(id, to: .expired, in: db) }
            return ids
        }
    }

    /// At start: uploads a crash caught between their last byte and their media row (in
    /// `processing` with no media) can never finish; they become `rejected` so the client
    /// learns to upload again instead of waiting. Returns their ids (their files go).
    func rejectInterruptedCompletions() async throws -> [String] {
        try await database.tracedWrite { db in
            let ids = try String.fetchAll(
                db.cachedStatement(sql: "SELECT id FROM upload WHERE state = 'processing' AND media_id IS NULL"))
            for id in ids {
                _ = try Self.move(id, to: .rejected, in: db) {
                    $0.rejectedReason = "the server stopped while finishing this upload; upload the file again"
                }
            }
            return ids
        }
    }

    /// Ids of uploads that may still have a file.
    func liveUploadIDs() async throws -> Set<String> {
        try await database.tracedRead { db in
            Set(
                try String.fetchAll(
                    db.cachedStatement(
                        sql: "SELECT id FROM upload WHERE state IN ('pending_upload', 'uploading', 'processing')")))
        }
    }
}
