import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Account deletion (App Store 5.1.1(v)).
struct DeletionStore: Sendable {
    let database: DatabasePool
    let outbox: Outbox

    /// Starts deleting a user, in one transaction: the account can no longer sign in (email
    /// and password cleared, every session revoked, roles dropped, username given up, its blocks and mutes forgotten), and `user.deleted` is
    /// written for every service holding user data. Returns nil if already deleted.
    func start(userID: String, deletionID: String, now: Date) async throws -> DeletionRecord? {
        try await database.tracedWrite { [outbox] db in
            guard var user = try UserRecord.live(id: userID, in: db) else { return nil }
            (user.deletedAt, user.updatedAt, user.email, user.passwordHash) = (now, now, nil, nil)
            user.displayName = "Deleted user"
            // The username is free at once (others may take it; nothing leads to this account).
            (user.username, user.usernameKey, user.usernameChangedAt) = (nil, nil, nil)
            try UserStore.saveAnnounced(&user, outbox: outbox, in: db)
            try BlockMirror.erase(userID: userID, in: db)
            try MuteMirror.erase(userID: userID, in: db)
            try UserSearchRecord.index(userID: userID, username: nil, displayName: nil, in: db)
            try SessionRecord.all().of(userID).live().updateAll(db, SessionRecord.Columns.revokedAt.set(to: now))
            try UserRoleRecord.filter(UserRoleRecord.Columns.userId == userID).deleteAll(db)
            let eventID = try outbox.enqueue(UserDeleted(userId: userID, requestedAt: now), in: db)
            let deletion = DeletionRecord(
                id: deletionID, userId: userID, eventId: eventID.uuidString.lowercased(), requestedAt: now,
                completedAt: nil)
            try deletion.insert(db)
            return deletion
        }
    }

    /// The user's deletion and the services that have not confirmed yet.
    func deletion(userID: String) async throws -> (DeletionRecord, pending: [ServiceName])? {
        try await database.tracedRead { db in
            guard let deletion = try DeletionRecord.filter(DeletionRecord.Columns.userId == userID).fetchOne(db) else {
                return nil
            }
            return (deletion, try Outbox.unacknowledged(eventID: deletion.eventId, in: db))
        }
    }

    /// Deletions every service has confirmed, not finished yet.
    func confirmed() async throws -> [DeletionRecord] {
        try await database.tracedRead { db in
            try DeletionRecord.filter(DeletionRecord.Columns.completedAt == nil).fetchAll(db).filter {
                try Outbox.unacknowledged(eventID: $0.eventId, in: db).isEmpty
            }
        }
    }

    /// Finishes a confirmed deletion: the user row goes, and with it (by cascade) sessions,
    /// refresh tokens, roles, Apple links, devices and incidents.
    func finish(_ deletion: DeletionRecord, now: Date) async throws {
        try await database.tracedWrite { db in
            try UserRecord.deleteOne(db, key: deletion.userId)
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
