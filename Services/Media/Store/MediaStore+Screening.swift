import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// What moderators decide about media screening held: release it or remove it.
extension MediaStore {
    /// `content.restored` for held media: a moderator released it (or reversed its removal).
    /// It is `ready`, its upload too, and the services that referenced it hear `media.ready`.
    static func release(_ event: ContentRestored, outbox: Outbox, in db: Database) throws {
        guard event.targetType == .media, var media = try MediaRecord.fetchOne(db, key: event.targetId),
            media.status == .held
        else { return }
        (media.status, media.rejectedReason) = (.ready, nil)
        try saveDescribed(&media, outbox: outbox, in: db)
        _ = try moveUpload(of: media.id, to: .ready, in: db)
        let references = try references(of: media.id, in: db)
        if !references.isEmpty {
            try outbox.enqueue(MediaReady(mediaId: media.id, ownerId: media.ownerId), to: references, in: db)
        }
    }

    /// `content.removed` for held media: it stays held, readable by its owner alone, with the
    /// reason its owner sees ("removed by a moderator"); its bytes stay, so an appeal the
    /// moderators reverse releases it (`content.restored`) as if it had never been removed.
    static func remove(_ event: ContentRemoved, in db: Database) throws {
        guard event.targetType == .media, var media = try MediaRecord.fetchOne(db, key: event.targetId),
            media.status == .held
        else { return }
        media.rejectedReason = removedReason
        try media.update(db)
    }

    static let removedReason = "removed by a moderator"

    /// Media `id` as a moderator judges it (the queue shows what screening held).
    func moderationSubject(media id: String) async throws -> ModerationSubject? {
        try await database.tracedRead { db in
            guard let media = try MediaRecord.fetchOne(db, key: id) else { return nil }
            let verdict = media.screeningScore.map { score in
                "Screening: \(media.screeningLabels ?? "") (score \(score))"
            }
            return ModerationSubject(
                type: .media, id: id, ownerId: media.ownerId, text: verdict, mediaIds: [id], createdAt: media.createdAt)
        }
    }
}
