import Contracts
import Foundation
import GRDB
import ServiceKit

/// Reports and the tallies that hide what enough people reported.
extension ModerationStore {
    /// Stores a report and counts it; the report that reaches the threshold hides the target
    /// and writes `content.hidden` in the same transaction. A second report of the same target
    /// by the same user is a 409 and counts nothing.
    func report(_ record: ReportRecord) async throws {
        try await database.tracedWrite { [outbox, autoHideReports] db in
            typealias Columns = ReportRecord.Columns
            let exists =
                try ReportRecord.filter(
                    Columns.reporterId == record.reporterId && Columns.targetType == record.targetType
                        && Columns.targetId == record.targetId
                ).isEmpty(db) == false
            guard !exists else { throw ServiceError(.conflict, "You have already reported this.") }
            try record.insert(db)
            try db.execute(
                sql: """
                    INSERT INTO moderation_target (target_type, target_id, report_count) VALUES (?, ?, 1)
                    ON CONFLICT (target_type, target_id) DO UPDATE SET report_count = report_count + 1
                    """, arguments: [record.targetType, record.targetId])
            var target = try ModerationTargetRecord.fetchOne(
                db, key: ["target_type": record.targetType.rawValue, "target_id": record.targetId])!
            guard target.hiddenAt == nil, target.reportCount >= autoHideReports else { return }
            target.hiddenAt = record.createdAt
            try target.update(db)
            try outbox.enqueue(
                ContentHidden(
                    targetType: record.targetType, targetId: record.targetId, reportCount: target.reportCount),
                in: db)
        }
    }
}
