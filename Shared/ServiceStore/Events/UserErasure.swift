import Contracts
import Foundation
import GRDB
import ServiceHTTP

extension EventInbox {
    /// Handles `user.deleted`: `erase` removes the service's own rows of the user, and the kit
    /// forgets what it keeps for them (stored idempotent answers, mirrored blocks and mutes; a
    /// copy of their profile becomes a tombstone), all in the inbox's transaction. Only after it
    /// commits is the event acknowledged, which is the service's confirmation to auth.
    public mutating func onUserDeleted(erase: @escaping @Sendable (_ userID: String, _ db: Database) throws -> Void) {
        on(UserDeleted.self) { envelope, db in
            let userID = envelope.payload.userId
            try erase(userID, db)
            try IdempotencyKeyRecord.filter(IdempotencyKeyRecord.Columns.scope == "user:\(userID)").deleteAll(db)
            try BlockMirror.erase(userID: userID, in: db)
            try MuteMirror.erase(userID: userID, in: db)
            try ProfileMirror.tombstone(userID: userID, in: db)
        }
    }
}

extension Outbox {
    /// The subscribers that have not acknowledged event `id` yet: empty once every one has
    /// (delivered rows, and then the event itself, are deleted).
    public static func unacknowledged(eventID: String, in db: Database) throws -> [ServiceName] {
        try String.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT d.subscriber FROM kit_outbox_delivery d JOIN kit_outbox_event e ON e.seq = d.event_seq
                    WHERE e.id = ? ORDER BY d.subscriber
                    """), arguments: [eventID]
        ).compactMap(ServiceName.init(rawValue:))
    }
}
