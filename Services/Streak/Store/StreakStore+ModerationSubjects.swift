import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Snaps as moderation judges them, and what its decisions do to them.
extension StreakStore {
    /// `content.hidden` and `content.removed` of a snap: the partners it was sent to see the
    /// day as `withheld` (it still counts for the streak; its sender still sees it), and its
    /// media is detached, so they cannot read the photo by id either.
    static func hide(_ type: ReportTargetType, _ id: String, at now: Date, outbox: Outbox, in db: Database) throws {
        guard type == .snap,
            let snap = try SnapRecord.filter(key: id).filter(SnapRecord.Columns.hiddenAt == nil).fetchOne(db)
        else { return }
        try SnapRecord.filter(key: id).updateAll(db, SnapRecord.Columns.hiddenAt.set(to: now))
        try outbox.enqueue(
            MediaDetached(mediaId: snap.mediaId, ownerId: snap.userId, referenceType: "snap", referenceId: snap.id),
            in: db)
    }

    /// `content.restored` of a snap: its partners see it again, and read its photo again: each
    /// partner who has a snap of their own for that day in a streak it went to (as when it was
    /// revealed).
    static func restore(_ event: ContentRestored, outbox: Outbox, in db: Database) throws {
        guard event.targetType == .snap,
            let snap = try SnapRecord.filter(key: event.targetId).filter(SnapRecord.Columns.hiddenAt != nil)
                .fetchOne(db)
        else { return }
        try SnapRecord.filter(key: snap.id).updateAll(db, SnapRecord.Columns.hiddenAt.set(to: nil))
        let readers = try String.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT DISTINCT theirs.user_id FROM streak_snap mine
                    JOIN streak_snap theirs ON theirs.streak_id = mine.streak_id AND theirs.local_date = mine.local_date
                                           AND theirs.user_id != mine.user_id
                    WHERE mine.snap_id = ? ORDER BY theirs.user_id
                    """), arguments: [snap.id])
        try outbox.enqueue(
            MediaAttached(
                mediaId: snap.mediaId, ownerId: snap.userId, visibility: .private, referenceType: "snap",
                referenceId: snap.id, readers: readers), in: db)
    }

    /// Snap `id`; with a `viewer`, only for its sender and (unless moderation hid it) the
    /// partners of the streaks it was sent into.
    func moderationSubject(snap id: String, viewer: String?) async throws -> ModerationSubject? {
        try await database.tracedRead { db in
            guard let snap = try SnapRecord.fetchOne(db, key: id) else { return nil }
            if let viewer, viewer != snap.userId {
                guard snap.hiddenAt == nil else { return nil }
                let streaks = try StreakSnapRecord.filter(StreakSnapRecord.Columns.snapId == id).fetchAll(db)
                    .map(\.streakId)
                let shownTo = try StreakRecord.filter(keys: streaks).fetchAll(db).flatMap { [$0.userA, $0.userB] }
                guard shownTo.contains(viewer) else { return nil }
            }
            let text = [snap.prompt, snap.caption].compactMap { $0 }.joined(separator: "\n")
            return ModerationSubject(
                type: .snap, id: id, ownerId: snap.userId, text: text.isEmpty ? nil : text, mediaIds: [snap.mediaId],
                createdAt: snap.createdAt)
        }
    }
}
