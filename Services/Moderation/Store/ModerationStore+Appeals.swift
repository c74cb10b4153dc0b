import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Appeals: one per action, by the user it touched, decided by another moderator.
extension ModerationStore {
    /// Files `appeal` against its action. The action must be the appellant's (404 otherwise,
    /// and for a dismissal, which touched nobody), not already undone (409), and not appealed
    /// before (409).
    func appeal(_ appeal: AppealRecord) async throws -> AppealRecord {
        try await database.tracedWrite { db in
            guard let action = try ModerationActionRecord.fetchOne(db, key: appeal.actionId),
                action.userId == appeal.userId, action.action != .dismiss
            else { throw ServiceError.notFound("Action") }
            guard action.reversedAt == nil else { throw ServiceError(.conflict, "This action was already undone.") }
            guard try AppealRecord.filter(AppealRecord.Columns.actionId == action.id).isEmpty(db) else {
                throw ServiceError(.conflict, "You have already appealed this action.")
            }
            try appeal.insert(db)
            try Self.audit(
                AuditEntryRecord(
                    actorId: appeal.userId, event: "appeal.made", targetType: action.targetType,
                    targetId: action.targetId, userId: appeal.userId, actionId: action.id, reason: nil,
                    createdAt: appeal.createdAt), in: db)
            return appeal
        }
    }

    /// Appeals waiting for a decision, oldest first, each with its action.
    func pendingAppeals(
        after position: TimePosition?, limit: Int
    ) async throws
        -> [(AppealRecord, ModerationActionRecord)]
    {
        try await database.tracedRead { db in
            let appeals = try AppealRecord.filter(AppealRecord.Columns.status == AppealStatus.pending)
                .oldestFirst(after: position, limit: limit + 1).fetchAll(db)
            let actions = try ModerationActionRecord.fetchAll(db, keys: appeals.map(\.actionId))
            let byID = Dictionary(uniqueKeysWithValues: actions.map { ($0.id, $0) })
            return appeals.compactMap { appeal in byID[appeal.actionId].map { (appeal, $0) } }
        }
    }

    /// Decides appeal `id`. The moderator who took the action, and the appellant, may not (403);
    /// a decided appeal is a 409. Reversing undoes the action's effects: a removed or hidden
    /// object is shown again (`content.restored`), a suspension or ban is lifted
    /// (`user.reinstated`), and the reports it answered count as dismissed.
    func decide(
        appeal id: String, by moderator: String, outcome: AppealOutcome, reason: String, at now: Date
    ) async throws -> (AppealRecord, ModerationActionRecord) {
        try await database.tracedWrite { [outbox, jobs] db in
            guard var appeal = try AppealRecord.fetchOne(db, key: id),
                var action = try ModerationActionRecord.fetchOne(db, key: appeal.actionId)
            else { throw ServiceError.notFound("Appeal") }
            guard action.moderatorId != moderator, appeal.userId != moderator else {
                throw ServiceError(
                    .forbidden,
                    "An appeal is decided by a moderator other than the one who acted (and not the appellant).")
            }
            guard appeal.status == .pending else { throw ServiceError(.conflict, "This appeal was already decided.") }
            appeal.status = outcome == .reverse ? .reversed : .upheld
            (appeal.decidedBy, appeal.decisionReason, appeal.decidedAt) = (moderator, reason, now)
            try appeal.update(db)
            if outcome == .reverse {
                action.reversedAt = now
                try action.update(db)
                try Self.undo(action, at: now, outbox: outbox, jobs: jobs, in: db)
            }
            try outbox.enqueue(
                AppealDecided(
                    userId: appeal.userId, appealId: appeal.id, actionId: action.id, outcome: outcome, reason: reason),
                in: db)
            try Self.audit(
                AuditEntryRecord(
                    actorId: moderator, event: "appeal.\(appeal.status.rawValue)", targetType: action.targetType,
                    targetId: action.targetId, userId: appeal.userId, actionId: action.id, reason: reason,
                    createdAt: now), in: db)
            return (appeal, action)
        }
    }

    /// What reversing `action` undoes.
    private static func undo(
        _ action: ModerationActionRecord, at now: Date, outbox: Outbox, jobs: JobQueue, in db: Database
    ) throws {
        switch action.action {
        case .suspend where action.endedAt == nil, .ban:
            try jobs.cancel(suspensionEnd, key: action.id, in: db)
            try outbox.enqueue(UserReinstated(userId: action.userId, actionId: action.id), in: db)
        case .suspend, .warn, .remove, .dismiss: break
        }
        if var target = try ModerationTargetRecord.fetchOne(
            db, key: ModerationTargetRecord.key(action.targetType, action.targetId)),
            target.hiddenAt != nil || target.removedAt != nil
        {
            (target.hiddenAt, target.removedAt) = (nil, nil)
            try target.update(db)
            try outbox.enqueue(ContentRestored(targetType: target.targetType, targetId: target.targetId), in: db)
        }
        let answered = try ReportRecord.filter(ReportRecord.Columns.actionId == action.id).fetchAll(db)
        for var report in answered where report.status == .actioned {
            (report.status, report.resolvedAt) = (.dismissed, now)
            try report.update(db)
            try ReporterTrustRecord.record(report.reporterId, upheld: -1, dismissed: 1, in: db)
        }
    }
}
