import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// What moderators read: reported objects oldest first, one object's reports, and the
/// history of the people whose objects they are.
extension ModerationStore {
    /// An object in moderation: its row, its reports, and its owner's earlier actions.
    struct Case: Sendable {
        var target: ModerationTargetRecord
        var reports: [ReportRecord]
        var priorActions: [(ModerationActionRecord, AppealRecord?)]
    }

    /// How many of an owner's earlier actions a case shows.
    static let priorActionLimit = 10

    /// Objects with open reports, the longest waiting first, after `position`; each with its
    /// open reports.
    func queue(after position: TimePosition?, limit: Int) async throws -> [Case] {
        try await database.tracedRead { db in
            let targets = try ModerationTargetRecord.filter(ModerationTargetRecord.Columns.firstOpenAt != nil)
                .oldestFirst(after: position, idColumn: "target_id", limit: limit + 1, timeColumn: "first_open_at")
                .fetchAll(db)
            return try targets.map { target in
                try Self.case(
                    of: target, reports: ReportRecord.all().of(target.targetType, target.targetId).open(), in: db)
            }
        }
    }

    /// One object with all its reports, or nil when nobody reported it and nobody acted on it.
    func moderationCase(_ type: ReportTargetType, _ id: String) async throws -> Case? {
        try await database.tracedRead { db in
            guard let target = try ModerationTargetRecord.fetchOne(db, key: ModerationTargetRecord.key(type, id)) else {
                return nil
            }
            return try Self.case(of: target, reports: ReportRecord.all().of(type, id), in: db)
        }
    }

    /// Open reports, oldest first (StreakSnap's pending reports list).
    func openReports(after position: TimePosition?, limit: Int) async throws -> [ReportRecord] {
        try await database.tracedRead { db in
            try ReportRecord.all().open().oldestFirst(after: position, limit: limit + 1).fetchAll(db)
        }
    }

    func report(id: String) async throws -> ReportRecord? {
        try await database.tracedRead { db in try ReportRecord.fetchOne(db, key: id) }
    }

    private static func `case`(
        of target: ModerationTargetRecord, reports: QueryInterfaceRequest<ReportRecord>, in db: Database
    ) throws -> Case {
        let prior = try ModerationActionRecord.filter(ModerationActionRecord.Columns.userId == target.ownerId)
            .newestFirst(after: nil, limit: priorActionLimit).fetchAll(db)
        return Case(
            target: target,
            reports: try reports.order(ReportRecord.Columns.createdAt, ReportRecord.Columns.id).fetchAll(db),
            priorActions: try withAppeals(prior, in: db))
    }
}
