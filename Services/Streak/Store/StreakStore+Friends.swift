import Contracts
import Foundation
import GRDB
import HTTPTypes
import ServiceHTTP
import ServiceStore

/// Friends: the people a user has a streak with that no block or unfriending ended.
extension StreakStore {
    /// Active streaks the free plan may hold at once (a subscription lifts the limit).
    static let freeActiveStreaks = 3

    /// `user`'s friends, newest friendship first, each with their streak as it stands now, as
    /// a view, and the name they last used with streak (for a friend the copy of profiles
    /// does not know yet).
    func friends(
        of user: String, after position: TimePosition?, limit: Int, at now: Date
    ) async throws -> [(standing: StreakStanding, displayName: String?)] {
        try await database.tracedRead { db in
            let standings = try TimePosition.newestFirst(
                StreakRecord.self,
                "SELECT * FROM streak WHERE (user_a = ? OR user_b = ?) AND \(StreakRecord.stillFriends)",
                arguments: [user, user],
                after: position, limit: limit, in: db
            ).map { try Self.standing(of: $0, viewer: user, at: now, in: db) }
            return try withFriends(standings, viewer: user, in: db).map { standing in
                let known = standing.friend.map { $0.deleted || !$0.displayName.isEmpty } ?? false
                let name =
                    known
                    ? standing.friend?.displayName
                    : try MemberRecord.fetchOne(db, key: standing.record.partner(of: user))?.displayName
                return (standing, name)
            }
        }
    }

    /// Refuses (402 `STREAK_LIMIT_REACHED`) a free user who already holds the free plan's
    /// active streaks.
    static func checkStreakLimit(of user: String, premium: Bool, in db: Database) throws {
        guard try !premium && isAtStreakLimit(user, in: db) else { return }
        throw ServiceError(
            .streakLimitReached,
            "The free plan holds \(freeActiveStreaks) active streaks; a subscription makes it unlimited.")
    }

    /// Whether `user` holds the free plan's active streaks already.
    static func isAtStreakLimit(_ user: String, in db: Database) throws -> Bool {
        try StreakRecord.all().of(user).ofFriends().active().fetchCount(db) >= freeActiveStreaks
    }

    /// The friendship of `user` and `friend`, or 404.
    static func friendship(of user: String, with friend: String, in db: Database) throws -> StreakRecord {
        guard let streak = try StreakRecord.all().pair(user, friend).ofFriends().fetchOne(db) else {
            throw ServiceError.notFound("Friend")
        }
        return streak
    }

    /// Ends the friendship and its streak for good (both stop seeing it among their friends;
    /// a new friend request starts afresh, keeping only the longest count).
    func unfriend(_ friend: String, by user: String, at now: Date) async throws {
        try await database.tracedWrite { db in
            var streak = try Self.friendship(of: user, with: friend, in: db)
            try end(&streak, reason: "unfriended", in: db)
        }
    }

    /// Ends a friendship's streak for good (`reason` is one of ``StreakRecord/endings``): it
    /// breaks, its deadline job goes, and media stops letting each read the other's snaps.
    func end(_ streak: inout StreakRecord, reason: String, in db: Database) throws {
        streak.status = .broken
        streak.brokenReason = reason
        try streak.update(db)
        try jobs.cancel(StreakDeadline.kind, key: streak.id, in: db)
        try outbox.enqueue(MediaSharingEnded(userIds: streak.members), in: db)
    }

    /// Nudges `friend` (`streak.nudged`), once per friend and the sender's local day; another
    /// is a 429 until the sender's next day.
    func nudge(_ friend: String, by user: String, at now: Date) async throws {
        try await database.tracedWrite { db in
            let streak = try Self.friendship(of: user, with: friend, in: db)
            let zone = try MemberRecord.fetchOne(db, key: user)?.zone ?? TimeZone(identifier: "UTC")!
            let today = LocalDay(now, in: zone)
            let nudge = NudgeRecord(fromUserId: user, toUserId: friend, localDate: today.description, createdAt: now)
            guard try !nudge.exists(db) else {
                let wait = max(1, Int(today.next.start(in: zone).timeIntervalSince(now).rounded(.up)))
                throw ServiceError(
                    .rateLimitExceeded, "You already nudged this friend today.", headers: [.retryAfter: "\(wait)"])
            }
            try nudge.insert(db)
            let from = try Self.members(of: streak, in: db).first { $0.userId == user }!
            try outbox.enqueue(StreakNudged(streakId: streak.id, from: from, toUserId: friend), in: db)
        }
    }
}

extension StreakStore {
    /// People found by auth's search, as `user` sees them: without `user` and anyone a block
    /// stands between, each with where they stand (friends, a pending request either way) and
    /// as a view (their avatar, from the service's copy).
    func relations(of user: String, to found: [UserSummary]) async throws -> [FoundUser] {
        try await database.tracedRead { db in
            let people = try views.people(found.map(\.id), in: db)
            return try found.compactMap { other -> FoundUser? in
                guard other.id != user, try BlockMirror.isBlocked(user, other.id, in: db) == false else { return nil }
                var person = FoundUser(
                    userId: other.id, displayName: other.displayName, relation: .none, username: other.username)
                if try StreakRecord.all().pair(user, other.id).ofFriends().isEmpty(db) == false {
                    person.relation = .friend
                } else if let request = try FriendRequestRecord.all().pending(between: user, and: other.id).fetchOne(db)
                {
                    person.relation = request.fromUserId == user ? .requestSent : .requestReceived
                    person.requestId = request.id
                }
                person.user = people[other.id]
                person.user?.relation = PersonRelation(friend: person.relation == .friend)
                return person
            }
        }
    }
}
