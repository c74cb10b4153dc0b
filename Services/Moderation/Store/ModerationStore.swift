import Contracts
import Foundation
import GRDB
import ServiceKit

/// The moderation service's database: reports, per-target tallies, blocks.
struct ModerationStore: Sendable {
    let database: DatabasePool
    let outbox: Outbox
    let autoHideReports: Int

    /// Stores a report and counts it; the report that reaches the threshold hides the target
    /// and writes `content.hidden` in the same transaction. A second report of the same target
    /// by the same user is a 409 and counts nothing.
    func report(_ record: ReportRecord) async throws {
        try await database.write { [outbox, autoHideReports] db in
            let exists = try ReportRecord.filter(
                sql: "reporter_id = ? AND target_type = ? AND target_id = ?",
                arguments: [record.reporterID, record.targetType, record.targetID]
            ).fetchCount(db)
            guard exists == 0 else { throw ServiceError(.conflict, "You have already reported this.") }
            try record.insert(db)
            try db.execute(
                sql: """
                    INSERT INTO moderation_target (target_type, target_id, report_count) VALUES (?, ?, 1)
                    ON CONFLICT (target_type, target_id) DO UPDATE SET report_count = report_count + 1
                    """, arguments: [record.targetType, record.targetID])
            let row = try Row.fetchOne(
                db,
                sql: "SELECT report_count, hidden_at FROM moderation_target WHERE target_type = ? AND target_id = ?",
                arguments: [record.targetType, record.targetID])!
            let count: Int = row["report_count"]
            let hiddenAt: Date? = row["hidden_at"]
            guard hiddenAt == nil, count >= autoHideReports else { return }
            try db.execute(
                sql: "UPDATE moderation_target SET hidden_at = ? WHERE target_type = ? AND target_id = ?",
                arguments: [record.createdAt, record.targetType, record.targetID])
            try outbox.enqueue(
                ContentHidden(targetType: record.targetType, targetId: record.targetID, reportCount: count), in: db)
        }
    }

    /// Blocks `blocked` for `blocker`; answers the block and whether it is new. Only a new
    /// block writes `user.blocked`.
    func block(_ record: BlockRecord) async throws -> (BlockRecord, created: Bool) {
        try await database.write { [outbox] db in
            if let existing = try BlockRecord.fetchOne(
                db, key: ["blocker_id": record.blockerID, "blocked_id": record.blockedID])
            {
                return (existing, false)
            }
            try record.insert(db)
            try outbox.enqueue(UserBlocked(blockerId: record.blockerID, blockedId: record.blockedID), in: db)
            return (record, true)
        }
    }

    /// Lifts a block; false when there was none.
    func unblock(blocker: String, blocked: String) async throws -> Bool {
        try await database.write { [outbox] db in
            guard try BlockRecord.deleteOne(db, key: ["blocker_id": blocker, "blocked_id": blocked]) else {
                return false
            }
            try outbox.enqueue(UserUnblocked(blockerId: blocker, blockedId: blocked), in: db)
            return true
        }
    }

    /// The users `blocker` blocks, newest first (a position's id is the blocked user's).
    func blocks(of blocker: String, after position: TimePosition?, limit: Int) async throws -> [BlockRecord] {
        try await database.read { db in
            try BlockRecord.filter(sql: "blocker_id = ?", arguments: [blocker])
                .newestFirst(after: position, idColumn: "blocked_id", limit: limit).fetchAll(db)
        }
    }
}
