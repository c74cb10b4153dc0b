import Contracts
import Foundation
import GRDB
import HTTPTypes
import ServiceHTTP
import ServiceStore

/// Reports, and the weights that hide what enough trusted people reported.
extension ModerationStore {
    /// Stores a report with its reporter's weight (``ReporterTrust``); the report that brings
    /// its target's open weight to `autoHideReports` hides it, writing `content.hidden` and an
    /// audit entry in the same transaction.
    ///
    /// Refused, counting nothing: a second report of the same target by the same user (409), a
    /// report of someone who blocked the reporter (404, as the object is not shown to them),
    /// more than `reportsPerHour` reports in an hour (429).
    func report(_ record: ReportRecord, reporterCreatedAt: Date?, objectCreatedAt: Date?) async throws -> ReportRecord {
        try await database.tracedWrite { [outbox, autoHideReports, reportsPerHour] db in
            typealias Columns = ReportRecord.Columns
            let now = record.createdAt
            if try BlockRecord.exists(
                db, key: ["blocker_id": record.targetOwnerId, "blocked_id": record.reporterId])
            {
                throw ServiceError.notFound("Object")
            }
            guard
                try ReportRecord.all().of(record.targetType, record.targetId)
                    .filter(Columns.reporterId == record.reporterId).isEmpty(db)
            else { throw Self.alreadyReported }
            let recent = try ReportRecord.filter(
                Columns.reporterId == record.reporterId && Columns.createdAt > now.addingTimeInterval(-3600)
            ).order(Columns.createdAt).select(Columns.createdAt, as: Date.self).fetchAll(db)
            if recent.count >= reportsPerHour, let oldest = recent.first {
                // Stored times keep milliseconds: a wait a hair over a whole second is that second.
                let wait = max(1, Int((oldest.addingTimeInterval(3600).timeIntervalSince(now) - 0.001).rounded(.up)))
                throw ServiceError(
                    .rateLimitExceeded, "At most \(reportsPerHour) reports an hour; try again in \(wait) s.",
                    headers: [.retryAfter: "\(wait)"])
            }
            let trust = try ReporterTrustRecord.fetchOne(db, key: record.reporterId)
            var record = record
            record.weight = ReporterTrust.weight(
                upheld: trust?.upheld ?? 0, dismissed: trust?.dismissed ?? 0, accountCreatedAt: reporterCreatedAt,
                objectCreatedAt: objectCreatedAt, now: now)
            try record.insert(db)

            var target =
                try ModerationTargetRecord.fetchOne(
                    db, key: ModerationTargetRecord.key(record.targetType, record.targetId))
                ?? ModerationTargetRecord(
                    targetType: record.targetType, targetId: record.targetId, ownerId: record.targetOwnerId)
            target.reportCount += 1
            target.openReports += 1
            target.weight += record.weight
            target.firstOpenAt = target.firstOpenAt ?? now
            let hides = target.hiddenAt == nil && target.removedAt == nil && target.weight >= Double(autoHideReports)
            if hides { target.hiddenAt = now }
            try target.save(db)
            guard hides else { return record }
            try outbox.enqueue(
                ContentHidden(
                    targetType: record.targetType, targetId: record.targetId, reportCount: target.openReports),
                in: db)
            try Self.audit(
                AuditEntryRecord(
                    actorId: AuditEntryRecord.system, event: "content.hidden", targetType: record.targetType,
                    targetId: record.targetId, userId: record.targetOwnerId,
                    reason: "\(target.openReports) open reports weighing \(target.weight) reached \(autoHideReports)",
                    createdAt: now), in: db)
            return record
        }
    }

    static let alreadyReported = ServiceError(.conflict, "You have already reported this.")

    func hasReported(_ type: ReportTargetType, _ id: String, by reporter: String) async throws -> Bool {
        try await database.tracedRead { db in
            try ReportRecord.all().of(type, id).filter(ReportRecord.Columns.reporterId == reporter).isEmpty(db) == false
        }
    }

    /// `reporter`'s reports, newest first.
    func reports(of reporter: String, after position: TimePosition?, limit: Int) async throws -> [ReportRecord] {
        try await database.tracedRead { db in
            try ReportRecord.filter(ReportRecord.Columns.reporterId == reporter)
                .newestFirst(after: position, limit: limit + 1).fetchAll(db)
        }
    }
}
