import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Moderation's keyword mutes (the kit's ``KeywordMuteMirror``), applied to every list feed
/// serves and to the notifications its posts cause: a post whose words a reader muted is not
/// shown to them, nor does it tell them.
extension FeedStore {
    /// What `user` has muted now (nothing: empty).
    static func mutedWords(of user: String, at now: Date, in db: Database) throws -> MutedWords {
        try KeywordMuteMirror.mutedWords(of: user, at: now, in: db)
    }

    /// `posts` without those whose words `viewer` muted.
    static func unmuted(_ posts: [Post], viewer: String, at now: Date, in db: Database) throws -> [Post] {
        let muted = try mutedWords(of: viewer, at: now, in: db)
        return muted.isEmpty ? posts : posts.filter { !muted.matches($0.text) }
    }
}
