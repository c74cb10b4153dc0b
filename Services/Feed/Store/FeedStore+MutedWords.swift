import Contracts
import Foundation
import GRDB
import ServiceKit

/// Moderation's keyword mutes, applied to every list feed serves and to the notifications its
/// posts cause: a post whose words a reader muted is not shown to them, nor does it tell them.
extension FeedStore {
    /// `keyword_mutes.changed`: keeps the list unless a later revision is already here.
    static func mutesChanged(_ event: KeywordMutesChanged, in db: Database) throws {
        if let stored = try MutedWordsRecord.fetchOne(db, key: event.userId), stored.revision >= event.revision {
            return
        }
        try MutedWordsRecord(userId: event.userId, revision: event.revision, mutes: event.mutes).upsert(db)
    }

    /// What `user` has muted now (nothing: empty).
    static func mutedWords(of user: String, at now: Date, in db: Database) throws -> MutedWords {
        try MutedWordsRecord.fetchOne(db, key: user)?.holding(at: now) ?? MutedWords([])
    }

    /// `posts` without those whose words `viewer` muted.
    static func unmuted(_ posts: [Post], viewer: String, at now: Date, in db: Database) throws -> [Post] {
        let muted = try mutedWords(of: viewer, at: now, in: db)
        return muted.isEmpty ? posts : posts.filter { !muted.matches($0.text) }
    }
}
