import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Posts, replies, spots and challenge clips as moderation judges them.
extension FeedStore {
    /// The object, or nil when it does not exist, was deleted by its author, or (with a
    /// `viewer`) is not shown to that user: a hidden post or spot only to its author, a clip as
    /// the challenge shows it (a hidden one to its owner only).
    func moderationSubject(_ type: ReportTargetType, id: String, viewer: String?) async throws -> ModerationSubject? {
        try await database.tracedRead { db in
            switch type {
            case .post, .reply: return try Self.postSubject(type, id: id, viewer: viewer, in: db)
            case .spot: return try Self.spotSubject(id: id, viewer: viewer, in: db)
            case .challengeClip: return try Self.clipSubject(mediaId: id, viewer: viewer, in: db)
            case .user, .snap, .message, .media: return nil
            }
        }
    }

    private static func postSubject(
        _ type: ReportTargetType, id: String, viewer: String?, in db: Database
    ) throws -> ModerationSubject? {
        guard let post = try PostRecord.filter(key: id).filter(PostRecord.Columns.deletedAt == nil).fetchOne(db),
            (post.parentId != nil) == (type == .reply),
            viewer == nil || post.hiddenAt == nil || viewer == post.authorId
        else { return nil }
        return ModerationSubject(
            type: type, id: id, ownerId: post.authorId, text: post.caption, mediaIds: try mediaIds(of: post, in: db),
            createdAt: post.createdAt)
    }

    private static func spotSubject(id: String, viewer: String?, in db: Database) throws -> ModerationSubject? {
        guard let spot = try SpotRecord.fetchOne(db, key: id),
            viewer == nil || spot.hiddenAt == nil || viewer == spot.creatorId
        else { return nil }
        return ModerationSubject(
            type: .spot, id: id, ownerId: spot.creatorId, text: "\(spot.name)\n\(spot.description)",
            mediaIds: try imageIds(ofSpot: id, in: db), createdAt: spot.createdAt)
    }

    /// A clip is named by its media id. Its owner sees it always, the opponent once it is
    /// ready, everyone once voting opened.
    private static func clipSubject(mediaId: String, viewer: String?, in db: Database) throws -> ModerationSubject? {
        guard let clip = try ChallengeClipRecord.filter(ChallengeClipRecord.Columns.mediaId == mediaId).fetchOne(db),
            let challenge = try ChallengeRecord.fetchOne(db, key: clip.challengeId)
        else { return nil }
        if let viewer, viewer != clip.userId {
            guard clip.hiddenAt == nil,
                challenge.votingOpened || (challenge.isParticipant(viewer) && clip.state == .ready)
            else {
                return nil
            }
        }
        return ModerationSubject(
            type: .challengeClip, id: mediaId, ownerId: clip.userId, text: challenge.trick, mediaIds: [mediaId],
            createdAt: clip.uploadedAt)
    }
}
