import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// The media service's database: one row per media object (the bytes are in ``BlobStore``).
struct MediaStore: Sendable {
    let database: DatabasePool
    let outbox: Outbox

    func insert(_ record: MediaRecord) async throws {
        try await database.tracedWrite { [outbox] db in try Self.insert(record, outbox: outbox, in: db) }
    }

    /// Inserts `record` with the reference of the service it was made for.
    func insert(_ record: MediaRecord, reference: MediaReferenceRecord) async throws {
        try await database.tracedWrite { [outbox] db in
            try Self.insert(record, outbox: outbox, in: db)
            try reference.insert(db)
        }
    }

    /// Every new media row goes in here: every service that shows media learns of it
    /// (`media.described`), and one that screening held tells moderation, in the same
    /// transaction.
    static func insert(_ record: MediaRecord, outbox: Outbox, in db: Database) throws {
        var record = record
        record.descriptionRevision = 1
        try record.insert(db)
        try outbox.enqueue(record.describedEvent, in: db)
        if let held = record.heldEvent { try outbox.enqueue(held, in: db) }
    }

    /// Saves a change of `media` that views show (its status, size, variants, placeholder) and
    /// sends it as the next revision of `media.described`. Every such change goes through here.
    static func saveDescribed(_ media: inout MediaRecord, outbox: Outbox, in db: Database) throws {
        media.descriptionRevision += 1
        try media.update(db)
        try outbox.enqueue(media.describedEvent, in: db)
    }

    func media(id: String) async throws -> MediaRecord? {
        try await database.tracedRead { db in try MediaRecord.fetchOne(db, key: id) }
    }

    /// The media object, when `viewer` may see it: its owner, anyone once it is public, and
    /// the readers a referencing service named.
    func media(id: String, visibleTo viewer: String) async throws -> MediaRecord? {
        try await database.tracedRead { db in
            guard let record = try MediaRecord.fetchOne(db, key: id) else { return nil }
            // Held media waits for a moderator: its owner alone reads it.
            guard record.status != .held || viewer == record.ownerId else { return nil }
            let visible =
                try record.isVisible(to: viewer) || MediaReaderRecord.exists(media: id, user: viewer, in: db)
            return visible ? record : nil
        }
    }

    /// Those of `ids` that `viewer` may see (as ``media(id:visibleTo:)`` decides), in the order
    /// given.
    func media(ids: [String], visibleTo viewer: String) async throws -> [MediaRecord] {
        try await database.tracedRead { db in
            let records = try MediaRecord.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM media WHERE id IN (SELECT value FROM json_each(?))"),
                arguments: [JSONList.argument(ids)])
            let readable = Set(
                try String.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT media_id FROM media_reader WHERE user_id = ?
                            AND media_id IN (SELECT value FROM json_each(?))
                            """
                    ), arguments: [viewer, JSONList.argument(ids)]))
            let visible = Dictionary(
                records.filter { record in
                    (record.status != .held || viewer == record.ownerId)
                        && (record.isVisible(to: viewer) || readable.contains(record.id))
                }.map { ($0.id, $0) }
            ) { first, _ in first }
            return ids.compactMap { visible[$0] }
        }
    }

    /// Applies `user.deleted`: the user's uploads and media rows go; once that commits, the
    /// uploads' growing files, and each of their blobs that nothing else uses (blobs are
    /// content-addressed, so another user's identical photo shares one), are deleted.
    static func erase(userID: String, blobs: BlobStore, uploads: UploadFiles, in db: Database) throws {
        let unfinished = UploadRecord.filter(UploadRecord.Columns.ownerId == userID)
        let unfinishedIDs = try unfinished.select(UploadRecord.Columns.id, as: String.self).fetchAll(db)
        try unfinished.deleteAll(db)
        if !unfinishedIDs.isEmpty {
            GroupCommit.afterCommit(of: db) { for id in unfinishedIDs { uploads.remove(id) } }
        }
        try MediaReaderRecord.filter(MediaReaderRecord.Columns.userId == userID).deleteAll(db)
        let media = MediaRecord.filter(MediaRecord.Columns.ownerId == userID)
        let hashes = try media.fetchAll(db).flatMap(\.blobHashes)
        try media.deleteAll(db)
        blobs.removeAfterCommit(try unused(hashes, in: db), in: db)
    }

    /// Applies `media.withdrawn`: deletes those of the listed objects that are the owner's and
    /// that the sending service referenced; once that commits, each of their blobs that nothing
    /// else uses is deleted. Anything else listed is left alone.
    static func withdraw(_ envelope: EventEnvelope<MediaWithdrawn>, blobs: BlobStore, in db: Database) throws {
        let event = envelope.payload
        let referenced = MediaReferenceRecord.filter(
            MediaReferenceRecord.Columns.service == envelope.source.rawValue
                && event.mediaIds.contains(MediaReferenceRecord.Columns.mediaId)
        ).select(MediaReferenceRecord.Columns.mediaId)
        let media = MediaRecord.filter(MediaRecord.Columns.ownerId == event.ownerId)
            .filter(referenced.contains(MediaRecord.Columns.id))
        let hashes = try media.fetchAll(db).flatMap(\.blobHashes)
        try media.deleteAll(db)
        blobs.removeAfterCommit(try unused(hashes, in: db), in: db)
    }

    /// Those of `hashes` that no media object (original or processed copy; a rejected one uses
    /// none) and no evidence uses.
    static func unused(_ hashes: [String], in db: Database) throws -> [String] {
        try Set(hashes).filter { try !isUsed($0, in: db) }.sorted()
    }

    static func isUsed(_ hash: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT EXISTS (SELECT 1 FROM media WHERE status != 'rejected'
                                               AND (sha256 = :h OR display_sha256 = :h
                                                    OR thumbnail_sha256 = :h OR poster_sha256 = :h))
                        OR EXISTS (SELECT 1 FROM evidence WHERE sha256 = :h)
                    """), arguments: ["h": hash]) ?? false
    }

    /// Every blob a row uses, for garbage collection.
    func usedBlobs() async throws -> Set<String> {
        try await database.tracedRead { db in try Self.usedBlobs(in: db) }
    }

    static func usedBlobs(in db: Database) throws -> Set<String> {
        Set(
            try String.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT sha256 FROM media WHERE status != 'rejected' UNION SELECT display_sha256 FROM media WHERE display_sha256 IS NOT NULL
                        UNION SELECT thumbnail_sha256 FROM media WHERE thumbnail_sha256 IS NOT NULL
                        UNION SELECT poster_sha256 FROM media WHERE poster_sha256 IS NOT NULL
                        UNION SELECT sha256 FROM evidence WHERE sha256 IS NOT NULL
                        """)))
    }

    /// Applies `media.attached`: the reference is remembered (so `media.ready` or
    /// `media.rejected` reaches the service that sent it), and the owner's media becomes as
    /// visible as the reference says (visibility and readers only widen). A media already processed
    /// answers at once. An id that is not the owner's changes nothing.
    func attach(_ envelope: EventEnvelope<MediaAttached>, in db: Database) throws {
        let event = envelope.payload
        guard var media = try MediaRecord.fetchOne(db, key: event.mediaId), media.ownerId == event.ownerId else {
            return
        }
        try MediaReferenceRecord(
            mediaId: media.id, service: envelope.source.rawValue, referenceType: event.referenceType,
            referenceId: event.referenceId
        ).insert(db, onConflict: .ignore)
        for reader in Set(event.readers ?? []) where reader != media.ownerId {
            try MediaReaderRecord(mediaId: media.id, userId: reader).insert(db, onConflict: .ignore)
        }
        if event.visibility == .public, media.visibility != .public {
            media.visibility = .public
            try media.update(db)
        }
        switch media.status {
        case .processing, .held: break
        case .ready:
            try outbox.enqueue(MediaReady(mediaId: media.id, ownerId: media.ownerId), to: [envelope.source], in: db)
        case .rejected:
            try outbox.enqueue(
                MediaRejected(mediaId: media.id, ownerId: media.ownerId, reason: media.rejectedReason ?? "rejected"),
                to: [envelope.source], in: db)
        }
    }

    /// Applies `media.detached`: the sender's reference goes; once nothing references the
    /// owner's media, only the owner may read it again (public no more, no readers). While
    /// another reference remains, what it made visible stays.
    static func detach(_ envelope: EventEnvelope<MediaDetached>, in db: Database) throws {
        let event = envelope.payload
        guard let media = try MediaRecord.fetchOne(db, key: event.mediaId), media.ownerId == event.ownerId else {
            return
        }
        try db.execute(
            sql: """
                DELETE FROM media_reference
                WHERE media_id = ? AND service = ? AND reference_type = ? AND reference_id = ?
                """, arguments: [media.id, envelope.source.rawValue, event.referenceType, event.referenceId])
        guard try MediaReferenceRecord.filter(sql: "media_id = ?", arguments: [media.id]).fetchCount(db) == 0 else {
            return
        }
        try db.execute(sql: "DELETE FROM media_reader WHERE media_id = ?", arguments: [media.id])
        try db.execute(sql: "UPDATE media SET visibility = 'private' WHERE id = ?", arguments: [media.id])
    }

    /// Applies `media.sharing_ended`: each of the two stops reading the other's media that the
    /// sending service referenced (a snap's partner loses its photo once the streak ends by an
    /// unfriending or a block). Readers other services named stay; presigned URLs already handed
    /// out keep working until they expire.
    static func endSharing(_ envelope: EventEnvelope<MediaSharingEnded>, in db: Database) throws {
        let users = Set(envelope.payload.userIds)
        guard users.count == 2 else { return }
        for owner in users {
            for reader in users where reader != owner {
                try db.execute(
                    sql: """
                        DELETE FROM media_reader
                        WHERE user_id = :reader AND media_id IN (
                            SELECT media.id FROM media JOIN media_reference ON media_reference.media_id = media.id
                            WHERE media.owner_id = :owner AND media_reference.service = :service)
                        """, arguments: ["reader": reader, "owner": owner, "service": envelope.source.rawValue])
            }
        }
    }
}
