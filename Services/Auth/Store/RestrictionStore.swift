import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// What moderation's actions do to accounts, applied from its events in the inbox's
/// transaction. Token verifiers learn of a suspension with the session state
/// (``SessionState/suspendedUntil``); a ban ends every session at once.
enum RestrictionStore {
    /// `user.suspended`: writes are refused until `until` (a later suspension replaces it).
    static func suspended(_ event: UserSuspended, in db: Database) throws {
        guard try UserRecord.exists(db, key: event.userId) else { return }
        var record = try restriction(of: event.userId, in: db)
        (record.suspendedUntil, record.suspensionActionId) = (event.until, event.actionId)
        try record.save(db)
    }

    /// `user.banned`: every session ends (alerts drops their devices and streams) and sign-ins
    /// are refused.
    static func banned(_ event: UserBanned, at now: Date, outbox: Outbox, in db: Database) throws {
        guard try UserRecord.exists(db, key: event.userId) else { return }
        var record = try restriction(of: event.userId, in: db)
        (record.bannedAt, record.banActionId, record.banReason) = (now, event.actionId, event.reason)
        try record.save(db)
        let live = try SessionRecord.all().of(event.userId).live().select(Column("id"), as: String.self).fetchAll(db)
        guard !live.isEmpty else { return }
        try SessionRecord.all().of(event.userId).live().updateAll(db, SessionRecord.Columns.revokedAt.set(to: now))
        try outbox.enqueue(SessionEnded(userId: event.userId, sessionIds: live, reason: .banned), in: db)
    }

    /// `user.reinstated`: the restriction `actionId` set is lifted (a newer one stays).
    static func reinstated(_ event: UserReinstated, in db: Database) throws {
        guard var record = try AccountRestrictionRecord.fetchOne(db, key: event.userId) else { return }
        if record.suspensionActionId == event.actionId {
            (record.suspendedUntil, record.suspensionActionId) = (nil, nil)
        }
        if record.banActionId == event.actionId {
            (record.bannedAt, record.banActionId, record.banReason) = (nil, nil, nil)
        }
        try record.update(db)
    }

    private static func restriction(of userID: String, in db: Database) throws -> AccountRestrictionRecord {
        try AccountRestrictionRecord.fetchOne(db, key: userID) ?? AccountRestrictionRecord(userId: userID)
    }
}
