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

    /// Applies `media.attached`: the owner's media becomes as visible as the reference says.
    /// Visibility only widens; an id that is not the owner's changes nothing.
    static func attach(_ event: MediaAttached, in db: Database) throws {
        guard event.visibility == .public else { return }
        try db.execute(
            sql: "UPDATE media SET visibility = 'public' WHERE id = ? AND owner_id = ?",
            arguments: [event.mediaId, event.ownerId])
    }
}
