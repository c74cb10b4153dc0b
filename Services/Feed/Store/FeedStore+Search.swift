import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Searching posts by their words (`post_fts`, SQLite FTS5).
extension FeedStore {
    /// The FTS5 query for `words`: every word must be there, the last may be the start of one
    /// (the reader is still typing). Words are quoted, so nothing in them is FTS syntax.
    static func ftsQuery(_ words: [String]) -> String {
        words.enumerated().map { index, word in
            "\"\(word)\"" + (index == words.count - 1 ? "*" : "")
        }.joined(separator: " ")
    }

    /// Posts `viewer` may see whose words match, best match first (FTS5's bm25), then newest;
    /// nothing hidden, deleted, still processing (others'), muted or across a block. `offset`
    /// rows of the ranking are skipped; up to `limit + 1` are read (one more tells there is a
    /// next page).
    func search(
        words: [String], viewer: String, offset: Int, limit: Int, now: Date
    ) async throws -> (posts: [Post], more: Bool) {
        try await database.tracedRead { db in
            let records = try PostRecord.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT p.* FROM post_fts JOIN post p ON p.rowid = post_fts.rowid
                        WHERE post_fts MATCH :query AND p.hidden_at IS NULL AND p.deleted_at IS NULL
                        AND (p.media_state = 'ready' OR p.author_id = :viewer)
                        AND \(BlockMirror.neitherBlocks(":viewer", "p.author_id"))
                        AND \(MuteMirror.notMuted(by: ":viewer", "p.author_id"))
                        ORDER BY bm25(post_fts), p.created_ms DESC, p.id DESC LIMIT :limit OFFSET :offset
                        """),
                arguments: ["query": Self.ftsQuery(words), "viewer": viewer, "limit": limit + 1, "offset": offset])
            let shown = Array(records.prefix(limit))
            return (
                try Self.unmuted(try views(shown, viewer: viewer, in: db), viewer: viewer, at: now, in: db),
                records.count > limit
            )
        }
    }
}
