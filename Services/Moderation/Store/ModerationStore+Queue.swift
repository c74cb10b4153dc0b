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
        /// The owner and the reporters, as views.
        var people: [String: PersonView] = [:]
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
            return try withPeople(
                try targets.map { target in
                    try Self.case(
                        of: target, reports: ReportRecord.all().of(target.targetType, target.targetId).open(), in: db)
                }, in: db)
        }
    }

    /// One object with all its reports, or nil when nobody reported it and nobody acted on it.
    func moderationCase(_ type: ReportTargetType, _ id: String) async throws -> Case? {
        try await database.tracedRead { db in
            guard let target = try ModerationTargetRecord.fetchOne(db, key: ModerationTargetRecord.key(type, id)) else {
                return nil
            }
            return try withPeople(
                [try Self.case(of: target, reports: ReportRecord.all().of(type, id), in: db)], in: db)[0]
        }
    }

    /// Open reports, oldest first (StreakSnap's pending reports list), each with its reporter
    /// as a view.
    func openReports(after position: TimePosition?, limit: Int) async throws -> [QueuedReport] {
        try await database.tracedRead { db in
            let records = try ReportRecord.all().open().oldestFirst(after: position, limit: limit + 1).fetchAll(db)
            let people = try views.people(records.flatMap { [$0.reporterId, $0.targetOwnerId] }, in: db)
            // Each row stands alone on StreakSnap's admin list: what was reported, and whose.
            return records.map { record in
                var report = record.queued
                report.reporter = people[record.reporterId]
                report.targetType = record.targetType
                report.targetId = record.targetId
                report.targetOwnerId = record.targetOwnerId
                report.targetOwner = people[record.targetOwnerId]
                return report
            }
        }
    }

    /// The people of `ids` as views (the console's names).
    func people(_ ids: [String]) async throws -> [String: PersonView] {
        try await database.tracedRead { db in try views.people(ids, in: db) }
    }

    /// `cases` with their owners and reporters as views.
    private func withPeople(_ cases: [Case], in db: Database) throws -> [Case] {
        let people = try views.people(cases.flatMap { [$0.target.ownerId] + $0.reports.map(\.reporterId) }, in: db)
        return cases.map { found in
            var found = found
            found.people = people
            return found
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
