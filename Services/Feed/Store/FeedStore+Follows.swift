import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Who follows whom, and each user's counts (kept in the transaction of each change and
/// published to auth as `profile.counts_changed`).
extension FeedStore {
    /// Adds the given amounts to `user`'s counts (never below zero), moves its revision on and
    /// publishes the counts with the user's challenge standing, all in `db`'s transaction (a
    /// result or a first visit to a spot calls it with no amounts).
    @discardableResult
    static func adjustCounts(
        of user: String, followers: Int = 0, following: Int = 0, posts: Int = 0, outbox: Outbox, in db: Database
    ) throws -> ProfileCounts {
        // Statements the connection keeps, here and below: every post, follow and unfollow runs them.
        try db.cachedStatement(
            sql: """
                INSERT INTO profile_count (user_id, followers, following, posts, revision)
                VALUES (?1, MAX(?2, 0), MAX(?3, 0), MAX(?4, 0), 1)
                ON CONFLICT (user_id) DO UPDATE SET followers = MAX(followers + ?2, 0),
                    following = MAX(following + ?3, 0), posts = MAX(posts + ?4, 0), revision = revision + 1
                """
        ).execute(arguments: [user, followers, following, posts])
        let record = try ProfileCountRecord.fetchOne(db, primaryKey: user) ?? ProfileCountRecord(userId: user)
        try outbox.enqueue(
            ProfileCountsChanged(
                userId: user, counts: record.counts, challenges: try challengeStanding(of: user, in: db),
                revision: record.revision), in: db)
        return record.counts
    }

    /// Where `viewer` and `user` stand, read in `db`.
    static func followState(of user: String, viewer: String, in db: Database) throws -> FollowState {
        FollowState(
            userId: user,
            following: try FollowRecord.exists(db, key: ["follower_id": viewer, "followee_id": user]),
            followsYou: try FollowRecord.exists(db, key: ["follower_id": user, "followee_id": viewer]),
            counts: try ProfileCountRecord.fetchOne(db, primaryKey: user)?.counts ?? ProfileCounts())
    }

    /// `follower`'s follow of `followee`, if there is one.
    func follow(by follower: String, of followee: String) async throws -> FollowRecord? {
        try await database.tracedRead { db in
            try FollowRecord.fetchOne(db, key: ["follower_id": follower, "followee_id": followee])
        }
    }

    /// Where `viewer` and `user` stand; nil when a block stands between them.
    func followState(of user: String, viewer: String) async throws -> FollowState? {
        try await database.tracedRead { db in
            guard try !BlockMirror.isBlocked(viewer, user, in: db) else { return nil }
            return try Self.followState(of: user, viewer: viewer, in: db)
        }
    }

    /// `follower` follows `followee` (again: nothing changes), unless a block stands between
    /// them (nil) or they followed `policy.limit` people within its window (429). A new follow
    /// counts on both, brings the followee's latest posts into the follower's timeline and
    /// tells alerts (`user.followed`).
    func follow(
        _ followee: String, by follower: EventActor, at now: Date, limit policy: RatePolicy
    ) async throws -> FollowState? {
        try await database.tracedWrite { [outbox] db in
            let me = follower.userId
            guard try !BlockMirror.isBlocked(me, followee, in: db) else { return nil }
            if try !FollowRecord.exists(db, key: ["follower_id": me, "followee_id": followee]) {
                let recent = try FollowRecord.filter(FollowRecord.Columns.followerId == me)
                    .filter(FollowRecord.Columns.createdAt > now.addingTimeInterval(-policy.window))
                    .select(FollowRecord.Columns.createdAt, as: Date.self).fetchAll(db)
                let decision = policy.decide(after: recent, now: now)
                guard decision.allowed else {
                    throw ServiceError.rateLimited(
                        "At most \(policy.limit) follows a day.", policy: policy, decision: decision)
                }
                try FollowRecord(followerId: me, followeeId: followee, createdAt: now).insert(db)
                try Self.backfill(me, from: followee, in: db)
                try Self.adjustCounts(of: me, following: 1, outbox: outbox, in: db)
                try Self.adjustCounts(of: followee, followers: 1, outbox: outbox, in: db)
                try outbox.enqueue(UserFollowed(follower: follower, followeeId: followee), in: db)
            }
            return try Self.followState(of: followee, viewer: me, in: db)
        }
    }

    /// `follower` stops following `followee` (not following: nothing changes); nil when a
    /// block stands between them.
    func unfollow(_ followee: String, by follower: String) async throws -> FollowState? {
        try await database.tracedWrite { [outbox] db in
            guard try !BlockMirror.isBlocked(follower, followee, in: db) else { return nil }
            try Self.removeFollow(from: follower, to: followee, outbox: outbox, in: db)
            return try Self.followState(of: followee, viewer: follower, in: db)
        }
    }

    /// Removes one follow, if it exists, takes it out of both counts and what it brought out of
    /// the follower's timeline.
    static func removeFollow(from follower: String, to followee: String, outbox: Outbox, in db: Database) throws {
        guard try FollowRecord.deleteOne(db, key: ["follower_id": follower, "followee_id": followee]) else { return }
        try forget(followee, in: follower, db: db)
        try adjustCounts(of: follower, following: -1, outbox: outbox, in: db)
        try adjustCounts(of: followee, followers: -1, outbox: outbox, in: db)
    }

    /// Which list of a user's follows.
    enum FollowList: Sendable {
        /// The people following the user.
        case followers
        /// The people the user follows.
        case following
    }

    /// One page of `user`'s followers or following as `viewer` sees it, newest follow first,
    /// each person as a view with where `viewer` stands with them: nil when a block stands
    /// between them; nobody a block stands between `viewer` and. `limit + 1` rows are read;
    /// `next` is where the next page starts.
    func follows(
        _ list: FollowList, of user: String, viewer: String, after position: TimePosition?, limit: Int
    ) async throws -> (entries: [FollowEntry], next: TimePosition?)? {
        try await database.tracedRead { db in
            guard try !BlockMirror.isBlocked(viewer, user, in: db) else { return nil }
            let (mine, theirs) = list == .followers ? ("followee_id", "follower_id") : ("follower_id", "followee_id")
            let rows = try TimePosition.newestFirst(
                FollowRecord.self,
                "SELECT * FROM follow WHERE \(mine) = ? AND \(BlockMirror.neitherBlocks("?", theirs))",
                arguments: [user, viewer, viewer], after: position, limit: limit + 1, idColumn: theirs, in: db
            )
            .map { (userId: list == .followers ? $0.followerId : $0.followeeId, followedAt: $0.createdAt) }
            let shown = rows.prefix(limit)
            let people = try people(shown.map(\.userId), viewer: viewer, in: db)
            let next =
                rows.count > limit ? shown.last.map { TimePosition(createdAt: $0.followedAt, id: $0.userId) } : nil
            let entries = shown.compactMap { row in
                people[row.userId].map { FollowEntry(user: $0, followedAt: row.followedAt) }
            }
            return (entries, next)
        }
    }

    /// The people of `ids` as views, each with where `viewer` stands with them: follows both
    /// ways, and whether `viewer` muted them.
    func people(_ ids: [String], viewer: String, in db: Database) throws -> [String: PersonView] {
        var people = try views.people(ids, in: db)
        guard !ids.isEmpty else { return people }
        let list = JSONList.argument(ids)
        let following = Set(
            try String.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT followee_id FROM follow WHERE follower_id = ?
                        AND followee_id IN (SELECT value FROM json_each(?))
                        """), arguments: [viewer, list]))
        let followers = Set(
            try String.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT follower_id FROM follow WHERE followee_id = ?
                        AND follower_id IN (SELECT value FROM json_each(?))
                        """), arguments: [viewer, list]))
        let muted = try MuteMirror.muted(by: viewer, among: ids, in: db)
        for id in ids where id != viewer {
            people[id]?.relation = PersonRelation(
                following: following.contains(id), followsYou: followers.contains(id), muted: muted.contains(id))
        }
        return people
    }

    /// `user.blocked`: the two stop following each other.
    static func unfollowBoth(_ event: UserBlocked, outbox: Outbox, in db: Database) throws {
        try removeFollow(from: event.blockerId, to: event.blockedId, outbox: outbox, in: db)
        try removeFollow(from: event.blockedId, to: event.blockerId, outbox: outbox, in: db)
    }

    /// At a deletion: the user's follows go both ways, out of everyone else's counts, and
    /// their counts go.
    static func eraseFollows(of user: String, outbox: Outbox, in db: Database) throws {
        let follows = FollowRecord.filter(FollowRecord.Columns.followerId == user)
        for followee in try follows.select(FollowRecord.Columns.followeeId, as: String.self).fetchAll(db) {
            try adjustCounts(of: followee, followers: -1, outbox: outbox, in: db)
        }
        let followers = FollowRecord.filter(FollowRecord.Columns.followeeId == user)
        for follower in try followers.select(FollowRecord.Columns.followerId, as: String.self).fetchAll(db) {
            try adjustCounts(of: follower, following: -1, outbox: outbox, in: db)
        }
        try follows.deleteAll(db)
        try followers.deleteAll(db)
        try ProfileCountRecord.deleteOne(db, key: user)
    }
}
