import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// A directed relation between two users that moderation owns and announces, one event when
/// it begins and one when it ends, so other services keep their own copies: blocks and mutes.
protocol UserRelationRecord: ServiceRecord, Sendable {
    associatedtype Began: DomainEvent
    associatedtype Ended: DomainEvent

    /// The columns of the user who acts (blocks, mutes) and of the user acted on.
    static var actorColumn: String { get }
    static var targetColumn: String { get }

    init(actorId: String, targetId: String, createdAt: Date)
    var actorId: String { get }
    var targetId: String { get }
    var createdAt: Date { get }

    var began: Began { get }
    var ended: Ended { get }
}

extension UserRelationRecord {
    var contract: Block { Block(userId: targetId, createdAt: createdAt) }

    static func key(_ actor: String, _ target: String) -> [String: String] {
        [actorColumn: actor, targetColumn: target]
    }
}

/// Blocks and mutes, and the events that tell other services of them.
extension ModerationStore {
    /// Starts the relation; answers it and whether it is new (only a new one is announced).
    /// One that would make more than `limit` of the actor's is refused (409).
    func relate<Record: UserRelationRecord>(_ record: Record, limit: Int) async throws -> (Record, created: Bool) {
        try await database.tracedWrite { [outbox] db in
            if let existing = try Record.fetchOne(db, key: Record.key(record.actorId, record.targetId)) {
                return (existing, false)
            }
            let count = try Record.filter(sql: "\(Record.actorColumn) = ?", arguments: [record.actorId]).fetchCount(db)
            guard count < limit else {
                throw ServiceError(.conflict, "At most \(limit) of these; lift one first.")
            }
            try record.insert(db)
            try outbox.enqueue(record.began, in: db)
            return (record, true)
        }
    }

    /// Ends the relation; false when there was none.
    func unrelate<Record: UserRelationRecord>(_ type: Record.Type, actor: String, target: String) async throws -> Bool {
        try await database.tracedWrite { [outbox] db in
            guard let record = try Record.fetchOne(db, key: Record.key(actor, target)) else { return false }
            try record.delete(db)
            try outbox.enqueue(record.ended, in: db)
            return true
        }
    }

    /// The users `actor` relates to, newest first (a position's id is the target's).
    func relations<Record: UserRelationRecord>(
        _ type: Record.Type, of actor: String, after position: TimePosition?, limit: Int
    ) async throws -> [Record] {
        try await database.tracedRead { db in
            try Record.filter(sql: "\(Record.actorColumn) = ?", arguments: [actor])
                .newestFirst(after: position, idColumn: Record.targetColumn, limit: limit).fetchAll(db)
        }
    }
}
