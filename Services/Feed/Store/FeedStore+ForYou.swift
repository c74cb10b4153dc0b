import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// For You: candidates from three sources, ranked by ``ForYouRanking``, and the signals
/// and affinities that feed it.
extension FeedStore {
    /// How much one action moves a reader's affinity for an author.
    enum AffinityStep {
        static let like = 3.0
        static let reply = 5.0
        static let repost = 4.0
        static let open = 1.0
        static let skip = -1.0
        static let hide = -3.0
        /// Per 5 seconds looked at, up to 3.
        static func dwell(milliseconds: Int) -> Double { min(3, Double(milliseconds / 5000) * 0.5) }
    }

    /// Adds `amount` to `user`'s affinity for `author` (never for themselves).
    static func addAffinity(_ amount: Double, of user: String, for author: String, in db: Database) throws {
        guard user != author, amount != 0 else { return }
        try db.execute(
            sql: """
                INSERT INTO affinity (user_id, author_id, score) VALUES (?1, ?2, ?3)
                ON CONFLICT (user_id, author_id) DO UPDATE SET score = score + ?3
                """, arguments: [user, author, amount])
    }

    /// Stores the signals not stored yet (by the app's id) and moves affinities; counts both.
    func record(_ signals: [FeedSignal], of user: String, at now: Date) async throws -> FeedSignalReceipt {
        try await database.tracedWrite { db in
            var accepted = 0
            for signal in signals {
                try FeedSignalRecord(
                    userId: user, id: signal.id, postId: signal.postId, kind: signal.kind.rawValue,
                    dwellMs: signal.dwellMs, at: now
                ).insert(db, onConflict: .ignore)
                guard db.changesCount > 0 else { continue }
                accepted += 1
                guard
                    let author = try String.fetchOne(
                        db.cachedStatement(sql: "SELECT author_id FROM post WHERE id = ?"), arguments: [signal.postId])
                else { continue }
                let step: Double =
                    switch signal.kind {
                    case .seen: 0
                    case .dwell: AffinityStep.dwell(milliseconds: signal.dwellMs ?? 0)
                    case .skip: AffinityStep.skip
                    case .open: AffinityStep.open
                    case .hide: AffinityStep.hide
                    }
                try Self.addAffinity(step, of: user, for: author, in: db)
            }
            return FeedSignalReceipt(accepted: accepted, duplicates: signals.count - accepted)
        }
    }

    /// `viewer`'s For You, ranked as of `now` with `seed`: posts of the last 72 hours from the
    /// people they follow (and their reposts), from people those people follow, and popular
    /// ones; never their own, nothing hidden, deleted, muted or across a block, nothing they
    /// saw or skipped in the 24 hours before `now`. Each post once, from its strongest source.
    /// Later pages use the ranking of the first (``ForYouRankings`` keeps it a while).
    func rankForYou(viewer: String, now: Date, seed: UInt64) async throws -> [ForYouRanking.Ranked] {
        try await database.tracedRead { db in
            let since = JSONCoding.milliseconds(now.addingTimeInterval(-ForYouRanking.window))
            let nowMs = JSONCoding.milliseconds(now)
            var sources: [String: ForYouRanking.Source] = [:]
            func offer(_ ids: [String], _ source: ForYouRanking.Source) {
                for id in ids where sources[id] == nil { sources[id] = source }
            }
            offer(
                try String.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT post_id FROM timeline WHERE user_id = ? AND at_ms >= ? AND at_ms <= ?
                            ORDER BY at_ms DESC LIMIT 300
                            """), arguments: [viewer, since, nowMs]), .followed)
            // Whom the people I follow (the 200 I followed last) follow most, that I do not.
            let authors = try String.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT f2.followee_id FROM (SELECT followee_id FROM follow INDEXED BY follow_by_follower
                                                     WHERE follower_id = :me ORDER BY created_at DESC LIMIT 200) f1
                        JOIN follow f2 ON f2.follower_id = f1.followee_id
                        WHERE f2.followee_id != :me
                          AND NOT EXISTS (SELECT 1 FROM follow m WHERE m.follower_id = :me AND m.followee_id = f2.followee_id)
                        GROUP BY f2.followee_id ORDER BY COUNT(*) DESC, f2.followee_id LIMIT 50
                        """), arguments: ["me": viewer])
            let recentBy = try db.cachedStatement(
                sql: """
                    SELECT id FROM post INDEXED BY post_by_author WHERE author_id = ? AND created_ms >= ?
                    AND created_ms <= ? AND parent_id IS NULL ORDER BY created_ms DESC LIMIT 5
                    """)
            for author in authors {
                offer(try String.fetchAll(recentBy, arguments: [author, since, nowMs]), .followsOfFollows)
            }
            offer(
                try String.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT id FROM (SELECT id, like_count + 2 * reply_count + 3 * repost_count AS engagement
                                            FROM post INDEXED BY post_by_time
                                            WHERE created_ms >= ? AND created_ms <= ? AND parent_id IS NULL
                                            AND deleted_at IS NULL ORDER BY created_ms DESC LIMIT 2000)
                            WHERE engagement > 0 ORDER BY engagement DESC, id LIMIT 200
                            """), arguments: [since, nowMs]), .popular)

            let dismissed = Set(
                try String.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT post_id FROM feed_signal WHERE user_id = ?
                            AND ((kind IN ('seen', 'skip') AND at > ? AND at <= ?) OR kind = 'hide')
                            """), arguments: [viewer, now.addingTimeInterval(-86400), now]))
            let muted = try Self.mutedWords(of: viewer, at: now, in: db)
            // Candidates are read as the few columns the ranking needs, by hand (decoding hundreds
            // of whole posts cost most of a page); only the page's posts are built whole.
            let ids = String(
                decoding: try JSONEncoder().encode(sources.keys.filter { !dismissed.contains($0) }.sorted()),
                as: UTF8.self)
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT p.id, p.author_id, p.created_ms, p.like_count, p.reply_count, p.repost_count, p.caption
                        FROM post p WHERE p.id IN (SELECT value FROM json_each(:ids))
                        AND p.hidden_at IS NULL AND p.deleted_at IS NULL AND p.media_state = 'ready'
                        AND p.author_id != :viewer AND \(BlockMirror.neitherBlocks(":viewer", "p.author_id"))
                        AND \(MuteMirror.notMuted(by: ":viewer", "p.author_id"))
                        """), arguments: ["ids": ids, "viewer": viewer]
            ).filter { !muted.matches($0[6] as String? ?? "") }
            let candidateAuthors = Set(rows.map { $0[1] as String })
            let affinities = Dictionary(
                try AffinityRecord.filter(sql: "user_id = ?", arguments: [viewer])
                    .filter(candidateAuthors.contains(Column("author_id"))).fetchAll(db)
                    .map { ($0.authorId, $0.score) }
            ) { first, _ in first }
            let candidates = rows.compactMap { row -> ForYouRanking.Candidate? in
                let id: String = row[0]
                let author: String = row[1]
                return sources[id].map { source in
                    ForYouRanking.Candidate(
                        postId: id, authorId: author, createdAt: JSONCoding.date(milliseconds: row[2]),
                        likes: row[3], replies: row[4], reposts: row[5], source: source,
                        affinity: affinities[author] ?? 0)
                }
            }
            return ForYouRanking.rank(candidates, now: now, seed: seed)
        }
    }

    /// The posts of `ranked` (a page of a ranking) that `viewer` may still see, in order: one
    /// hidden, deleted, muted or blocked since the ranking was made is left out.
    func forYouPage(
        _ ranked: ArraySlice<ForYouRanking.Ranked>, viewer: String
    ) async throws -> [(post: Post, ranked: ForYouRanking.Ranked)] {
        try await database.tracedRead { db in
            let records = try Self.feedPosts(ids: ranked.map(\.candidate.postId), viewer: viewer, in: db)
            let byID = Dictionary(zip(records.map(\.id), try views(records, viewer: viewer, in: db))) { first, _ in
                first
            }
            return ranked.compactMap { entry in byID[entry.candidate.postId].map { ($0, entry) } }
        }
    }
}
