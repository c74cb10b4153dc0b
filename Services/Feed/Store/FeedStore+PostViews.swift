import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

extension FeedStore {
    /// `records` as `viewer` sees them: their vote, like and repost, and every post's media,
    /// read for all at once (with statements the connection keeps: every list of posts comes
    /// through here); `distances` by post id for a nearby list. With `shown` (the default) each
    /// carries what its card shows (``shown(_:viewer:in:)``); a list that still drops some of
    /// them asks for that after.
    func views(
        _ records: [PostRecord], viewer: String, distances: [String: Double] = [:], shown: Bool = true,
        in db: Database
    ) throws -> [Post] {
        guard !records.isEmpty else { return [] }
        let ids = JSONList.argument(records.map(\.id))
        let arguments: StatementArguments = ["viewer": viewer, "ids": ids]
        let mine = { (table: String, column: String) -> [String: DatabaseValue] in
            Dictionary(
                try Row.fetchAll(
                    db.cachedStatement(
                        sql: """
                            SELECT post_id, \(column) FROM \(table)
                            WHERE user_id = :viewer AND post_id IN (SELECT value FROM json_each(:ids))
                            """), arguments: arguments
                ).map { ($0[0], $0[1]) }
            ) { first, _ in first }
        }
        let votes = try mine("vote", "value")
        let likes = try mine("post_like", "1")
        let reposts = try mine("repost", "1")
        var media: [String: [String]] = [:]
        for row in try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT post_id, media_id FROM post_media WHERE post_id IN (SELECT value FROM json_each(:ids))
                    ORDER BY post_id, position
                    """), arguments: arguments)
        {
            media[row[0], default: []].append(row[1])
        }
        let posts = records.map { record in
            let all = record.mediaId.map { [$0] + (media[record.id] ?? []) }
            return record.post(
                myVote: VoteValue(weight: votes[record.id].flatMap { Int.fromDatabaseValue($0) }),
                distance: distances[record.id],
                viewer: PostRecord.ViewerMarks(
                    liked: likes[record.id] != nil, reposted: reposts[record.id] != nil, mediaIds: all))
        }
        return shown ? try self.shown(posts, viewer: viewer, in: db) : posts
    }

    /// `posts` with what their cards show, from the service's own copies, for the whole list
    /// at once: the author, every photo and video as a view, who wrote the post each one
    /// answers and its thread's first post (left out when a block stands between the reader
    /// and them), and the post each quotes with its author and media (left out when the reader
    /// may not see it, as a feed leaves it out).
    func shown(_ posts: [Post], viewer: String, in db: Database) throws -> [Post] {
        guard !posts.isEmpty else { return [] }
        // The quoted posts a feed would show the reader, read once for the page.
        var quotable: [Post] = []
        let quotedIDs = Set(posts.compactMap(\.quoteOf))
        if !quotedIDs.isEmpty {
            let records = try Self.feedPosts(ids: Array(quotedIDs), viewer: viewer, in: db)
            quotable = try views(records, viewer: viewer, shown: false, in: db)
        }
        let referenced = Set(posts.flatMap { [$0.replyTo, $0.rootId].compactMap(\.self) })
        var writers: [String: String] = [:]
        if !referenced.isEmpty {
            for row in try Row.fetchAll(
                db.cachedStatement(sql: "SELECT id, author_id FROM post WHERE id IN (SELECT value FROM json_each(?))"),
                arguments: [JSONList.argument(referenced)])
            {
                writers[row[0]] = row[1]
            }
        }
        let separated = try BlockMirror.separated(from: viewer, among: Set(writers.values), in: db)
        let people = try views.people(posts.map(\.authorId) + writers.values + quotable.map(\.authorId), in: db)
        let media = try views.media((posts + quotable).flatMap { $0.mediaIds ?? [] }, viewer: viewer, in: db)
        var quoted: [String: QuotedPost] = [:]
        for var post in quotable {
            post.author = people[post.authorId]
            post.media = post.mediaIds.map { $0.compactMap { media[$0] } }
            quoted[post.id] = QuotedPost(post)
        }
        func writer(of post: String?) -> PersonView? {
            guard let post, let id = writers[post], !separated.contains(id) else { return nil }
            return people[id]
        }
        return posts.map { post in
            var post = post
            post.author = people[post.authorId]
            post.media = post.mediaIds.map { $0.compactMap { media[$0] } }
            post.replyToAuthor = writer(of: post.replyTo)
            post.rootAuthor = writer(of: post.rootId)
            post.quoted = post.quoteOf.flatMap { quoted[$0] }
            return post
        }
    }
}
