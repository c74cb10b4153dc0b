import Contracts
import Foundation
import GRDB
import ServiceKit

/// Account deletion (App Store 5.1.1(v)).
extension AuthStore {
    /// Starts deleting a user, in one transaction: the account can no longer sign in (email
    /// and password cleared, every session revoked, roles dropped), and `user.deleted` is
    /// written for every service holding user data. Returns nil if already deleted.
    func startDeletion(userID: String, deletionID: String, now: Date) async throws -> DeletionRecord? {
        try await database.write { [outbox] db in
            guard try UserRecord.filter(key: userID).filter(UserRecord.Columns.deletedAt == nil).fetchCount(db) == 1
            else { return nil }
            try db.execute(
                sql:
                    "UPDATE user SET deleted_at = ?1, updated_at = ?1, email = NULL, password_hash = NULL, display_name = 'Deleted user' WHERE id = ?2",
                arguments: [now, userID])
            try db.execute(
                sql: "UPDATE session SET revoked_at = ?1 WHERE user_id = ?2 AND revoked_at IS NULL",
                arguments: [now, userID])
            try db.execute(sql: "DELETE FROM user_role WHERE user_id = ?1", arguments: [userID])
            let eventID = try outbox.enqueue(UserDeleted(userId: userID, requestedAt: now), in: db)
            let deletion = DeletionRecord(
                id: deletionID, userID: userID, eventID: eventID.uuidString.lowercased(), requestedAt: now,
                completedAt: nil)
            try deletion.insert(db)
            return deletion
        }
    }

    /// The user's deletion and the services that have not confirmed yet.
    func deletion(userID: String) async throws -> (DeletionRecord, pending: [ServiceName])? {
        try await database.read { db in
            guard let deletion = try DeletionRecord.filter(sql: "user_id = ?", arguments: [userID]).fetchOne(db) else {
                return nil
            }
            return (deletion, try Outbox.unacknowledged(eventID: deletion.eventID, in: db))
        }
    }

    /// Deletions every service has confirmed, not finished yet.
    func confirmedDeletions() async throws -> [DeletionRecord] {
        try await database.read { db in
            try DeletionRecord.filter(sql: "completed_at IS NULL").fetchAll(db).filter {
                try Outbox.unacknowledged(eventID: $0.eventID, in: db).isEmpty
            }
        }
    }

    /// Finishes a confirmed deletion: the user row goes, and with it (by cascade) sessions,
    /// refresh tokens, roles, Apple links, devices and incidents.
    func finish(_ deletion: DeletionRecord, now: Date) async throws {
        try await database.write { db in
            try db.execute(sql: "DELETE FROM user WHERE id = ?", arguments: [deletion.userID])
            var deletion = deletion
            deletion.completedAt = now
            try deletion.update(db)
        }
    }
}

extension DeletionRecord {
    func progress(pending: [ServiceName]) -> AccountDeletion {
        AccountDeletion(
            id: id, status: completedAt == nil ? .inProgress : .completed, requestedAt: requestedAt,
            completedAt: completedAt,
            services: EventCatalog.subscribers(of: UserDeleted.eventType).map {
                AccountDeletion.ServiceProgress(service: $0, confirmed: !pending.contains($0))
            })
    }
}
