import Contracts
import Foundation
import GRDB
import ServiceKit

/// Snaps as moderation judges them, and what its decisions do to them.
extension StreakStore {
    /// `content.hidden` and `content.removed` of a snap: the partners it was sent to see the
    /// day as `withheld` (it still counts for the streak; its sender still sees it).
    static func hide(_ type: ReportTargetType, _ id: String, at now: Date, in db: Database) throws {
        guard type == .snap else { return }
        try SnapRecord.filter(key: id).filter(SnapRecord.Columns.hiddenAt == nil)
            .updateAll(db, SnapRecord.Columns.hiddenAt.set(to: now))
    }

    /// `content.restored` of a snap: its partners see it again.
    static func restore(_ event: ContentRestored, in db: Database) throws {
        guard event.targetType == .snap else { return }
        try SnapRecord.filter(key: event.targetId).updateAll(db, SnapRecord.Columns.hiddenAt.set(to: nil))
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
