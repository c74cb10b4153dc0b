import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Friend requests: sent, answered, listed.
extension StreakStore {
    /// Stores a pending request and its `friend_request.sent` event together. Refused when a
    /// block stands between the two (404, as if the user did not exist), when they are already
    /// friends, or when a request between them is pending (409), or when a free sender holds
    /// the free plan's active streaks already (402).
    func send(_ record: FriendRequestRecord, fromDisplayName: String) async throws {
        try await database.tracedWrite { [outbox] db in
            if try BlockMirror.isBlocked(record.fromUserId, record.toUserId, in: db) {
                throw ServiceError.notFound("User")
            }
            if try StreakRecord.all().pair(record.fromUserId, record.toUserId).ofFriends().isEmpty(db) == false {
                throw ServiceError(.conflict, "You are already friends.")
            }
            try Self.checkStreakLimit(of: record.fromUserId, premium: record.fromPremium, in: db)
            guard try FriendRequestRecord.all().pending(between: record.fromUserId, and: record.toUserId).isEmpty(db)
            else {
                throw ServiceError(.conflict, "A friend request between you is already pending.")
            }
            try record.insert(db)
            try MemberRecord.remember(record.fromUserId, displayName: fromDisplayName, at: record.createdAt, in: db)
            try outbox.enqueue(
                FriendRequestSent(
                    requestId: record.id, fromUserId: record.fromUserId, fromDisplayName: fromDisplayName,
                    toUserId: record.toUserId), in: db)
        }
    }

    /// A pending request addressed to `user`, or 404 (someone else's request is not found);
    /// one that was already answered is a 409.
    static func pendingRequest(id: String, to user: String, in db: Database) throws -> FriendRequestRecord {
        try pendingRequest(id: id, in: db) { $0.toUserId == user }
    }

    /// A pending request `user` sent, or 404; one that was already answered is a 409.
    static func pendingRequest(id: String, from user: String, in db: Database) throws -> FriendRequestRecord {
        try pendingRequest(id: id, in: db) { $0.fromUserId == user }
    }

    private static func pendingRequest(
        id: String, in db: Database, belongs: (FriendRequestRecord) -> Bool
    ) throws -> FriendRequestRecord {
        guard let record = try FriendRequestRecord.fetchOne(db, key: id), belongs(record) else {
            throw ServiceError.notFound("Friend request")
        }
        guard record.status == .pending else {
            throw ServiceError(.conflict, "This friend request was already \(record.status.rawValue).")
        }
        return record
    }

    /// Accepts: the request, the pair's streak (new, or an ended one started afresh) and the
    /// `friend_request.accepted` event, in one transaction. A free user holding the free plan's
    /// active streaks already is refused (402); so is a request whose sender asked on the free
    /// plan and has reached its limit since (409 `FRIEND_STREAK_LIMIT_REACHED`, still pending).
    func accept(
        requestID: String, by user: String, displayName: String, premium: Bool, newStreakID: String, at now: Date
    ) async throws -> StreakRecord {
        try await database.tracedWrite { db in
            var request = try Self.pendingRequest(id: requestID, to: user, in: db)
            if try BlockMirror.isBlocked(request.fromUserId, user, in: db) {
                throw ServiceError.notFound("Friend request")
            }
            try Self.checkStreakLimit(of: user, premium: premium, in: db)
            if !request.fromPremium, try Self.isAtStreakLimit(request.fromUserId, in: db) {
                throw ServiceError(
                    .friendStreakLimitReached,
                    "Your friend's free plan already holds \(Self.freeActiveStreaks) active streaks; "
                        + "this request waits until one of theirs ends.")
            }
            request.status = .accepted
            request.respondedAt = now
            try request.update(db)
            try MemberRecord.remember(user, displayName: displayName, at: now, in: db)
            // A pair that was friends before starts afresh, keeping only its longest count.
            let previous = try StreakRecord.all().pair(request.fromUserId, user).fetchOne(db)
            var streak = StreakRecord(id: previous?.id ?? newStreakID, between: request.fromUserId, and: user, at: now)
            streak.longestCount = previous?.longestCount ?? 0
            streak.createdAt = previous?.createdAt ?? now
            try streak.save(db)
            // Both now have a friend to snap with: their daily windows start.
            for member in streak.members { try planWindow(for: member, at: now, in: db) }
            try outbox.enqueue(
                FriendRequestAccepted(
                    requestId: request.id, fromUserId: request.fromUserId, toUserId: user, toDisplayName: displayName,
                    streakId: streak.id), in: db)
            return streak
        }
    }

    /// Deletes a pending request `user` sent.
    func withdraw(requestID: String, by user: String) async throws {
        try await database.tracedWrite { db in
            _ = try Self.pendingRequest(id: requestID, from: user, in: db).delete(db)
        }
    }

    func decline(requestID: String, by user: String, at now: Date) async throws -> FriendRequestRecord {
        try await database.tracedWrite { db in
            var request = try Self.pendingRequest(id: requestID, to: user, in: db)
            request.status = .declined
            request.respondedAt = now
            try request.update(db)
            return request
        }
    }

    /// Pending requests to (`incoming`) or from `user`, newest first, with both people as views.
    func pendingRequests(
        of user: String, incoming: Bool, after position: TimePosition?, limit: Int
    ) async throws -> [FriendRequest] {
        try await database.tracedRead { db in
            try withPeople(
                try TimePosition.newestFirst(
                    FriendRequestRecord.self,
                    "SELECT * FROM friend_request WHERE \(incoming ? "to_user_id" : "from_user_id") = ? AND status = ?",
                    arguments: [user, FriendRequestStatus.pending.rawValue], after: position, limit: limit, in: db),
                in: db)
        }
    }
}
