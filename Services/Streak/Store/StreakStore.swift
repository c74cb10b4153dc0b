import Contracts
import Foundation
import GRDB
import ServiceKit

/// The streak service's database: friend requests, streaks, snaps and a local copy of blocks.
struct StreakStore: Sendable {
    let database: DatabasePool
    let outbox: Outbox

    static func isBlocked(_ one: String, _ other: String, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db,
            sql: """
                SELECT 1 FROM block WHERE (blocker_id = ? AND blocked_id = ?) OR (blocker_id = ? AND blocked_id = ?)
                """, arguments: [one, other, other, one]) == true
    }

    // MARK: - Friend requests

    /// Stores a pending request and its `friend_request.sent` event together. Refused when a
    /// block stands between the two (404, as if the user did not exist), when they are already
    /// friends, or when a request between them is pending (409).
    func send(_ record: FriendRequestRecord, fromDisplayName: String) async throws {
        try await database.write { [outbox] db in
            if try Self.isBlocked(record.fromUserID, record.toUserID, in: db) { throw ServiceError.notFound("User") }
            let (a, b) = StreakRecord.pair(record.fromUserID, record.toUserID)
            if try StreakRecord.filter(sql: "user_a = ? AND user_b = ? AND status = 'active'", arguments: [a, b])
                .fetchCount(db) > 0
            {
                throw ServiceError(.conflict, "You are already friends.")
            }
            let pending = try FriendRequestRecord.filter(
                sql: """
                    status = 'pending' AND ((from_user_id = ? AND to_user_id = ?) OR (from_user_id = ? AND to_user_id = ?))
                    """, arguments: [record.fromUserID, record.toUserID, record.toUserID, record.fromUserID]
            ).fetchCount(db)
            guard pending == 0 else {
                throw ServiceError(.conflict, "A friend request between you is already pending.")
            }
            try record.insert(db)
            try outbox.enqueue(
                FriendRequestSent(
                    requestId: record.id, fromUserId: record.fromUserID, fromDisplayName: fromDisplayName,
                    toUserId: record.toUserID), in: db)
        }
    }

    /// A pending request addressed to `user`, or 404 (someone else's request is not found);
    /// one that was already answered is a 409.
    static func pendingRequest(id: String, to user: String, in db: Database) throws -> FriendRequestRecord {
        guard let record = try FriendRequestRecord.fetchOne(db, key: id), record.toUserID == user else {
            throw ServiceError.notFound("Friend request")
        }
        guard record.status == .pending else {
            throw ServiceError(.conflict, "This friend request was already \(record.status.rawValue).")
        }
        return record
    }

    /// Accepts: the request, the pair's streak (new, or a broken one started again) and the
    /// `friend_request.accepted` event, in one transaction.
    func accept(
        requestID: String, by user: String, displayName: String, newStreakID: String, at now: Date
    ) async throws -> StreakRecord {
        try await database.write { [outbox] db in
            var request = try Self.pendingRequest(id: requestID, to: user, in: db)
            if try Self.isBlocked(request.fromUserID, user, in: db) { throw ServiceError.notFound("Friend request") }
            request.status = .accepted
            request.respondedAt = now
            try request.update(db)
            let (a, b) = StreakRecord.pair(request.fromUserID, user)
            var streak =
                try StreakRecord.filter(sql: "user_a = ? AND user_b = ?", arguments: [a, b]).fetchOne(db)
                ?? StreakRecord(
                    id: newStreakID, userA: a, userB: b, count: 0, longestCount: 0, lastCompletedDate: nil,
                    status: .active, brokenReason: nil, createdAt: now)
            streak.status = .active
            streak.count = 0
            streak.brokenReason = nil
            try streak.save(db)
            try outbox.enqueue(
                FriendRequestAccepted(
                    requestId: request.id, fromUserId: request.fromUserID, toUserId: user, toDisplayName: displayName,
                    streakId: streak.id), in: db)
            return streak
        }
    }

    func decline(requestID: String, by user: String, at now: Date) async throws -> FriendRequestRecord {
        try await database.write { db in
            var request = try Self.pendingRequest(id: requestID, to: user, in: db)
            request.status = .declined
            request.respondedAt = now
            try request.update(db)
            return request
        }
    }

    /// Pending requests to (`incoming`) or from `user`, newest first.
    func pendingRequests(
        of user: String, incoming: Bool, after position: TimePosition?, limit: Int
    ) async throws -> [FriendRequestRecord] {
        try await database.read { db in
            try FriendRequestRecord.filter(
                sql: "\(incoming ? "to_user_id" : "from_user_id") = ? AND status = 'pending'", arguments: [user]
            ).newestFirst(after: position, limit: limit).fetchAll(db)
        }
    }

    // MARK: - Streaks and snaps

    func streaks(of user: String, after position: TimePosition?, limit: Int) async throws -> [StreakRecord] {
        try await database.read { db in
            try StreakRecord.filter(sql: "(user_a = ? OR user_b = ?)", arguments: [user, user])
                .newestFirst(after: position, limit: limit).fetchAll(db)
        }
    }

    func streak(id: String, of user: String) async throws -> StreakRecord? {
        try await database.read { db in
            try StreakRecord.fetchOne(db, key: id).flatMap { $0.userA == user || $0.userB == user ? $0 : nil }
        }
    }

    /// The time zone of `user`'s latest snap (UTC before the first one).
    func zone(of user: String) async throws -> TimeZone {
        let name = try await database.read { db in
            try String.fetchOne(
                db, sql: "SELECT time_zone FROM snap WHERE user_id = ? ORDER BY created_at DESC LIMIT 1",
                arguments: [user])
        }
        return name.flatMap(TimeZone.init(identifier:)) ?? TimeZone(identifier: "UTC")!
    }

    /// Records today's snap and advances every active streak of the sender whose partner has
    /// snapped for the same local day: by one when the pair also completed the day before,
    /// back to 1 otherwise. Returns the sender's streaks after the change.
    func snap(_ snap: SnapRecord) async throws -> [StreakRecord] {
        try await database.write { db in
            if try SnapRecord.filter(sql: "user_id = ? AND local_date = ?", arguments: [snap.userID, snap.localDate])
                .fetchCount(db) > 0
            {
                throw ServiceError(.conflict, "You already snapped for \(snap.localDate).")
            }
            try snap.insert(db)
            let day = LocalDay(snap.localDate)!
            var streaks = try StreakRecord.filter(
                sql: "(user_a = ? OR user_b = ?) AND status = 'active'", arguments: [snap.userID, snap.userID]
            ).fetchAll(db)
            for index in streaks.indices {
                var streak = streaks[index]
                let partnerSnapped =
                    try SnapRecord.filter(
                        sql: "user_id = ? AND local_date = ?",
                        arguments: [streak.partner(of: snap.userID), snap.localDate]
                    ).fetchCount(db) > 0
                let last = streak.lastCompletedDate.flatMap(LocalDay.init)
                guard partnerSnapped, last.map({ $0 < day }) ?? true else { continue }
                streak.count = last == day.previous ? streak.count + 1 : 1
                streak.longestCount = max(streak.longestCount, streak.count)
                streak.lastCompletedDate = day.description
                try streak.update(db)
                streaks[index] = streak
            }
            return streaks
        }
    }

    // MARK: - Events

    /// `user.blocked`: remember the block, break their streak, decline pending requests.
    static func block(_ event: UserBlocked, at now: Date, in db: Database) throws {
        try db.execute(
            sql: "INSERT OR IGNORE INTO block (blocker_id, blocked_id) VALUES (?, ?)",
            arguments: [event.blockerId, event.blockedId])
        let (a, b) = StreakRecord.pair(event.blockerId, event.blockedId)
        try db.execute(
            sql: "UPDATE streak SET status = 'broken', broken_reason = 'blocked' WHERE user_a = ? AND user_b = ?",
            arguments: [a, b])
        try db.execute(
            sql: """
                UPDATE friend_request SET status = 'declined', responded_at = ?
                WHERE status = 'pending' AND ((from_user_id = ? AND to_user_id = ?) OR (from_user_id = ? AND to_user_id = ?))
                """, arguments: [now, event.blockerId, event.blockedId, event.blockedId, event.blockerId])
    }

    /// `user.unblocked`: the block is lifted; the broken streak stays broken until the two
    /// become friends again.
    static func unblock(_ event: UserUnblocked, in db: Database) throws {
        try db.execute(
            sql: "DELETE FROM block WHERE blocker_id = ? AND blocked_id = ?",
            arguments: [event.blockerId, event.blockedId])
    }
}
