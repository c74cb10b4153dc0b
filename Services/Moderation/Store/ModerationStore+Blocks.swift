import Contracts
import Foundation
import GRDB
import ServiceKit

/// Blocks, and the events that tell other services of them.
extension ModerationStore {
    /// Blocks `blocked` for `blocker`; answers the block and whether it is new. Only a new
    /// block writes `user.blocked`.
    func block(_ record: BlockRecord) async throws -> (BlockRecord, created: Bool) {
        try await database.write { [outbox] db in
            if let existing = try BlockRecord.fetchOne(
                db, key: ["blocker_id": record.blockerId, "blocked_id": record.blockedId])
            {
                return (existing, false)
            }
            try record.insert(db)
            try outbox.enqueue(UserBlocked(blockerId: record.blockerId, blockedId: record.blockedId), in: db)
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
            try BlockRecord.filter(BlockRecord.Columns.blockerId == blocker)
                .newestFirst(after: position, idColumn: "blocked_id", limit: limit).fetchAll(db)
        }
    }
}
