import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Moderators' actions and what each does across services, through events written in the
/// same transaction as the action and its audit entry.
extension ModerationStore {
    /// The job that ends a suspension when its time runs out.
    static let suspensionEnd: JobKind = "moderation.suspension-end"

    struct SuspensionEnd: Codable, Sendable {
        var actionId: String
    }

    /// Takes `action` on its target: the target's open reports are resolved by it (dismissed
    /// or actioned, and their reporters' record updated), and:
    /// - `dismiss` shows the target again if reports hid it (`content.restored`);
    /// - `remove` has its owner hide it for good (`content.removed`);
    /// - `warn`, `suspend` and `ban` reach its owner (`user.warned`, `user.suspended` with a job
    ///   that ends it, `user.banned`).
    /// A dismissal with nothing to dismiss, or a removal of what is already removed, is a 409.
    func act(_ action: ModerationActionRecord) async throws -> ModerationActionRecord {
        try await database.tracedWrite { [outbox, jobs] db in
            let now = action.createdAt
            let key = ModerationTargetRecord.key(action.targetType, action.targetId)
            var target =
                try ModerationTargetRecord.fetchOne(db, key: key)
                ?? ModerationTargetRecord(
                    targetType: action.targetType, targetId: action.targetId, ownerId: action.userId)
            let open = try ReportRecord.all().of(action.targetType, action.targetId).open().fetchAll(db)
            try action.insert(db)
            switch action.action {
            case .dismiss:
                guard !open.isEmpty || target.hiddenAt != nil else {
                    throw ServiceError(.conflict, "There are no open reports to dismiss.")
                }
                if target.hiddenAt != nil, target.removedAt == nil {
                    target.hiddenAt = nil
                    try outbox.enqueue(
                        ContentRestored(targetType: target.targetType, targetId: target.targetId), in: db)
                }
            case .remove:
                guard target.removedAt == nil else { throw ServiceError(.conflict, "This was already removed.") }
                target.removedAt = now
                try outbox.enqueue(
                    ContentRemoved(
                        targetType: action.targetType, targetId: action.targetId, ownerId: action.userId,
                        actionId: action.id, reason: action.reason), in: db)
            case .warn:
                try outbox.enqueue(
                    UserWarned(userId: action.userId, actionId: action.id, reason: action.reason), in: db)
            case .suspend:
                let until = action.endsAt ?? now
                try outbox.enqueue(
                    UserSuspended(userId: action.userId, actionId: action.id, until: until, reason: action.reason),
                    in: db)
                try jobs.schedule(
                    Self.suspensionEnd, key: action.id, payload: SuspensionEnd(actionId: action.id), at: until, in: db)
            case .ban:
                try outbox.enqueue(
                    UserBanned(userId: action.userId, actionId: action.id, reason: action.reason), in: db)
            }
            try Self.resolve(open, by: action, at: now, in: db)
            target.closeReports()
            try target.save(db)
            try Self.audit(
                AuditEntryRecord(
                    actorId: action.moderatorId, event: "action.\(action.action.rawValue)",
                    targetType: action.targetType,
                    targetId: action.targetId, userId: action.userId, actionId: action.id, reason: action.reason,
                    createdAt: now), in: db)
            return action
        }
    }

    /// The open reports `action` answered: dismissed by a dismissal, actioned by anything else,
    /// each reporter's record counting it.
    private static func resolve(
        _ reports: [ReportRecord], by action: ModerationActionRecord, at now: Date, in db: Database
    ) throws {
        let dismissed = action.action == .dismiss
        for var report in reports {
            (report.status, report.resolvedAt, report.actionId) = (dismissed ? .dismissed : .actioned, now, action.id)
            try report.update(db)
            try ReporterTrustRecord.record(
                report.reporterId, upheld: dismissed ? 0 : 1, dismissed: dismissed ? 1 : 0, in: db)
        }
    }

    /// `media.held`: screening held a new photo or video. It waits in the queue, hidden, with
    /// no report, until a moderator releases it (`dismiss`) or removes it.
    static func mediaHeld(_ event: MediaHeld, at now: Date, in db: Database) throws {
        let key = ModerationTargetRecord.key(.media, event.mediaId)
        guard try ModerationTargetRecord.fetchOne(db, key: key) == nil else { return }
        try ModerationTargetRecord(
            targetType: .media, targetId: event.mediaId, hiddenAt: now, ownerId: event.ownerId, firstOpenAt: now
        ).insert(db)
        let labels = event.labels.isEmpty ? "" : " (\(event.labels.joined(separator: ", ")))"
        try audit(
            AuditEntryRecord(
                actorId: AuditEntryRecord.system, event: "media.held", targetType: .media, targetId: event.mediaId,
                userId: event.ownerId, reason: "screening scored \(event.score)\(labels)", createdAt: now), in: db)
    }

    /// The suspension job: once the suspension's time has run out (and no appeal reversed it
    /// first), auth lifts it (`user.reinstated`) and the log says so.
    static func endSuspension(_ job: SuspensionEnd, at now: Date, outbox: Outbox, in db: Database) throws {
        guard var action = try ModerationActionRecord.fetchOne(db, key: job.actionId), action.action == .suspend,
            action.reversedAt == nil, action.endedAt == nil
        else { return }
        action.endedAt = now
        try action.update(db)
        try outbox.enqueue(UserReinstated(userId: action.userId, actionId: action.id), in: db)
        try audit(
            AuditEntryRecord(
                actorId: AuditEntryRecord.system, event: "suspension.ended", targetType: action.targetType,
                targetId: action.targetId, userId: action.userId, actionId: action.id, reason: nil, createdAt: now),
            in: db)
    }

    /// The actions taken against `user`, newest first, each with its appeal (dismissals, which
    /// touch nobody, left out).
    func actions(
        against user: String, after position: TimePosition?, limit: Int
    ) async throws
        -> [(ModerationActionRecord, AppealRecord?)]
    {
        try await database.tracedRead { db in
            let actions = try ModerationActionRecord.filter(ModerationActionRecord.Columns.userId == user)
                .filter(sql: "action != 'dismiss'").newestFirst(after: position, limit: limit + 1).fetchAll(db)
            return try Self.withAppeals(actions, in: db)
        }
    }

    func action(id: String) async throws -> (ModerationActionRecord, AppealRecord?)? {
        try await database.tracedRead { db in
            guard let action = try ModerationActionRecord.fetchOne(db, key: id) else { return nil }
            return (action, try AppealRecord.filter(AppealRecord.Columns.actionId == id).fetchOne(db))
        }
    }

    static func withAppeals(
        _ actions: [ModerationActionRecord], in db: Database
    ) throws -> [(ModerationActionRecord, AppealRecord?)] {
        let appeals = try AppealRecord.filter(actions.map(\.id).contains(AppealRecord.Columns.actionId)).fetchAll(db)
        let byAction = Dictionary(appeals.map { ($0.actionId, $0) }, uniquingKeysWith: { first, _ in first })
        return actions.map { ($0, byAction[$0.id]) }
    }
}
