import Contracts
import Foundation
import GRDB
import ServiceKit

/// What other services' events do to posts, in the inbox's transaction.
extension FeedStore {
    /// `content.hidden` and `content.removed`: the post or reply stops being listed or shown,
    /// and leaves its author's count (kept, so a moderator can restore it); a spot or a
    /// challenge clip is shown to its owner only.
    static func hide(
        _ type: ReportTargetType, _ id: String, at now: Date, outbox: Outbox, in db: Database
    ) throws {
        switch type {
        case .post, .reply:
            guard
                let post = try PostRecord.filter(key: id).filter(PostRecord.Columns.hiddenAt == nil)
                    .filter(PostRecord.Columns.deletedAt == nil).fetchOne(db)
            else { return }
            try PostRecord.filter(key: post.id).updateAll(db, PostRecord.Columns.hiddenAt.set(to: now))
            try adjustCounts(of: post.authorId, posts: -1, outbox: outbox, in: db)
        case .spot:
            try SpotRecord.filter(key: id).filter(SpotRecord.Columns.hiddenAt == nil)
                .updateAll(db, SpotRecord.Columns.hiddenAt.set(to: now))
        case .challengeClip:
            try ChallengeClipRecord.filter(ChallengeClipRecord.Columns.mediaId == id)
                .filter(ChallengeClipRecord.Columns.hiddenAt == nil)
                .updateAll(db, ChallengeClipRecord.Columns.hiddenAt.set(to: now))
        case .user, .snap, .message, .media: return
        }
    }

    /// `content.restored`: a hidden post or reply (not deleted by its author since) is shown
    /// and counts again; a hidden spot or challenge clip is shown again.
    static func restore(_ event: ContentRestored, outbox: Outbox, in db: Database) throws {
        switch event.targetType {
        case .post, .reply:
            guard
                let post = try PostRecord.filter(key: event.targetId).filter(PostRecord.Columns.hiddenAt != nil)
                    .filter(PostRecord.Columns.deletedAt == nil).fetchOne(db)
            else { return }
            try PostRecord.filter(key: post.id).updateAll(db, PostRecord.Columns.hiddenAt.set(to: nil))
            try adjustCounts(of: post.authorId, posts: 1, outbox: outbox, in: db)
        case .spot:
            try SpotRecord.filter(key: event.targetId).updateAll(db, SpotRecord.Columns.hiddenAt.set(to: nil))
        case .challengeClip:
            try ChallengeClipRecord.filter(ChallengeClipRecord.Columns.mediaId == event.targetId)
                .updateAll(db, ChallengeClipRecord.Columns.hiddenAt.set(to: nil))
        case .user, .snap, .message, .media: return
        }
    }

    /// `media.ready`: a post waiting for its media (processing, or held by screening until a
    /// moderator released it) is shown.
    static func mediaReady(_ event: MediaReady, in db: Database) throws {
        typealias Columns = PostRecord.Columns
        try PostRecord.filter(
            Columns.mediaId == event.mediaId && Columns.authorId == event.ownerId
                && [MediaStatus.processing, .held].contains(Columns.mediaState)
        ).updateAll(db, Columns.mediaState.set(to: MediaStatus.ready))
    }

    /// `media.rejected`: the post's media is gone; only its author still sees the post, with
    /// the media's state, and can delete it.
    static func mediaRejected(_ event: MediaRejected, in db: Database) throws {
        typealias Columns = PostRecord.Columns
        try PostRecord.filter(Columns.mediaId == event.mediaId && Columns.authorId == event.ownerId)
            .updateAll(db, Columns.mediaState.set(to: MediaStatus.rejected))
    }
}
