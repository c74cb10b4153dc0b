import Contracts
import Foundation
import GRDB
import ServiceKit

/// The media service's database: one row per media object (the bytes are in ``BlobStore``).
struct MediaStore: Sendable {
    let database: DatabasePool

    func insert(_ record: MediaRecord) async throws {
        try await database.write { db in try record.insert(db) }
    }

    func media(id: String) async throws -> MediaRecord? {
        try await database.read { db in try MediaRecord.fetchOne(db, key: id) }
    }

    /// Applies `user.deleted`: the user's uploads (rows and growing files) and media rows go,
    /// and each of their blobs that no other user's media shares (blobs are content-addressed)
    /// is deleted from disk.
    static func erase(userID: String, blobs: BlobStore, uploads: UploadFiles, in db: Database) throws {
        let unfinished = try String.fetchAll(db, sql: "SELECT id FROM upload WHERE owner_id = ?", arguments: [userID])
        try db.execute(sql: "DELETE FROM upload WHERE owner_id = ?", arguments: [userID])
        for id in unfinished { uploads.remove(id) }
        let hashes = try String.fetchAll(
            db, sql: "SELECT DISTINCT sha256 FROM media WHERE owner_id = ?", arguments: [userID])
        try db.execute(sql: "DELETE FROM media WHERE owner_id = ?", arguments: [userID])
        for hash in hashes
        where try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM media WHERE sha256 = ?", arguments: [hash]) == 0 {
            try blobs.remove(sha256: hash)
        }
    }

    /// Applies `media.attached`: the owner's media becomes as visible as the reference says.
    /// Visibility only widens; an id that is not the owner's changes nothing.
    static func attach(_ event: MediaAttached, in db: Database) throws {
        guard event.visibility == .public else { return }
        try db.execute(
            sql: "UPDATE media SET visibility = 'public' WHERE id = ? AND owner_id = ?",
            arguments: [event.mediaId, event.ownerId])
    }
}
