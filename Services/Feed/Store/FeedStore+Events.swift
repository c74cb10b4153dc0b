import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// What other services' events do to posts, in the inbox's transaction.
extension FeedStore {
    /// `content.hidden` and `content.removed`: the post or reply stops being listed or shown,
    /// and leaves its author's count (kept, so a moderator can restore it); a spot or a
    /// challenge clip is shown to its owner only. The object's media is detached too, so it
    /// cannot be read by id either (once nothing else references it, media lets only its owner
    /// read it).
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
            for media in try mediaIds(of: post, in: db) {
                try outbox.enqueue(
                    MediaDetached(mediaId: media, ownerId: post.authorId, referenceType: "post", referenceId: post.id),
                    in: db)
            }
        case .spot:
            guard
                let spot = try SpotRecord.filter(key: id).filter(SpotRecord.Columns.hiddenAt == nil).fetchOne(db)
            else { return }
            try SpotRecord.filter(key: id).updateAll(db, SpotRecord.Columns.hiddenAt.set(to: now))
            for media in try imageIds(ofSpot: spot.id, in: db) {
                try outbox.enqueue(
                    MediaDetached(mediaId: media, ownerId: spot.creatorId, referenceType: "spot", referenceId: spot.id),
                    in: db)
            }
        case .challengeClip:
            let clips = ChallengeClipRecord.filter(ChallengeClipRecord.Columns.mediaId == id)
                .filter(ChallengeClipRecord.Columns.hiddenAt == nil)
            for clip in try clips.fetchAll(db) {
                try outbox.enqueue(
                    MediaDetached(
                        mediaId: clip.mediaId, ownerId: clip.userId, referenceType: "challenge",
                        referenceId: clip.challengeId), in: db)
            }
            try clips.updateAll(db, ChallengeClipRecord.Columns.hiddenAt.set(to: now))
        case .user, .snap, .message, .media: return
        }
    }

    /// `content.restored`: a hidden post or reply (not deleted by its author since) is shown
    /// and counts again; a hidden spot or challenge clip is shown again. Its media is attached
    /// again as it was when shown: public for posts, spots and clips open for voting, the
    /// opponent alone for a clip before that.
    static func restore(_ event: ContentRestored, outbox: Outbox, in db: Database) throws {
        switch event.targetType {
        case .post, .reply:
            guard
                let post = try PostRecord.filter(key: event.targetId).filter(PostRecord.Columns.hiddenAt != nil)
                    .filter(PostRecord.Columns.deletedAt == nil).fetchOne(db)
            else { return }
            try PostRecord.filter(key: post.id).updateAll(db, PostRecord.Columns.hiddenAt.set(to: nil))
            try adjustCounts(of: post.authorId, posts: 1, outbox: outbox, in: db)
            for media in try mediaIds(of: post, in: db) {
                try outbox.enqueue(
                    MediaAttached(
                        mediaId: media, ownerId: post.authorId, visibility: .public, referenceType: "post",
                        referenceId: post.id), in: db)
            }
        case .spot:
            guard
                let spot = try SpotRecord.filter(key: event.targetId).filter(SpotRecord.Columns.hiddenAt != nil)
                    .fetchOne(db)
            else { return }
            try SpotRecord.filter(key: spot.id).updateAll(db, SpotRecord.Columns.hiddenAt.set(to: nil))
            for media in try imageIds(ofSpot: spot.id, in: db) {
                try outbox.enqueue(
                    MediaAttached(
                        mediaId: media, ownerId: spot.creatorId, visibility: .public, referenceType: "spot",
                        referenceId: spot.id), in: db)
            }
        case .challengeClip:
            let clips = ChallengeClipRecord.filter(ChallengeClipRecord.Columns.mediaId == event.targetId)
                .filter(ChallengeClipRecord.Columns.hiddenAt != nil)
            for clip in try clips.fetchAll(db) {
                guard let challenge = try ChallengeRecord.fetchOne(db, key: clip.challengeId) else { continue }
                let open = challenge.votingOpened
                try outbox.enqueue(
                    MediaAttached(
                        mediaId: clip.mediaId, ownerId: clip.userId, visibility: open ? .public : .private,
                        referenceType: "challenge", referenceId: challenge.id,
                        readers: open ? nil : [challenge.other(than: clip.userId)]), in: db)
            }
            try clips.updateAll(db, ChallengeClipRecord.Columns.hiddenAt.set(to: nil))
        case .user, .snap, .message, .media: return
        }
    }

    /// Every media object a post shows, in order.
    static func mediaIds(of post: PostRecord, in db: Database) throws -> [String] {
        let more = try PostMediaRecord.filter(sql: "post_id = ?", arguments: [post.id]).order(sql: "position")
            .fetchAll(db).map(\.mediaId)
        return (post.mediaId.map { [$0] } ?? []) + more
    }

    /// A spot's photos, in order.
    static func imageIds(ofSpot id: String, in db: Database) throws -> [String] {
        try SpotImageRecord.filter(SpotImageRecord.Columns.spotId == id)
            .order(SpotImageRecord.Columns.position).fetchAll(db).map(\.mediaId)
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
