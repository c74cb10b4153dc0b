import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// The audit log: who did what, when and why. Entries are written in the transaction of what
/// they record, and never changed (the table's triggers refuse it).
extension ModerationStore {
    /// Where a newest-first page of the log ends.
    struct AuditPosition: Codable, Sendable {
        var before: Int64

        enum CodingKeys: String, CodingKey { case before = "b" }
    }

    /// What the log is narrowed to: one user's entries, or one object's.
    enum AuditFilter: Sendable {
        case all
        case user(String)
        case target(ReportTargetType, String)
    }

    static func audit(_ entry: AuditEntryRecord, in db: Database) throws {
        try entry.insert(db)
    }

    /// Entries newest first, before `position`.
    func auditLog(
        _ filter: AuditFilter, before position: AuditPosition?, limit: Int
    ) async throws
        -> [AuditEntryRecord]
    {
        try await database.tracedRead { db in
            typealias Columns = AuditEntryRecord.Columns
            var request = AuditEntryRecord.all()
            switch filter {
            case .all: break
            case .user(let user): request = request.filter(Columns.userId == user)
            case .target(let type, let id):
                request = request.filter(Columns.targetType == type && Columns.targetId == id)
            }
            if let position { request = request.filter(Columns.id < position.before) }
            return try request.order(Columns.id.desc).limit(limit + 1).fetchAll(db)
        }
    }
}
