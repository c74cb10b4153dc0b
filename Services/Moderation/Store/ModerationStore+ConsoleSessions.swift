import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// The web console's sessions.
extension ModerationStore {
    /// Opens `session`, dropping the ones that expired meanwhile.
    func open(_ session: ConsoleSessionRecord) async throws {
        try await database.tracedWrite { db in
            try ConsoleSessionRecord.filter(ConsoleSessionRecord.Columns.expiresAt <= session.createdAt).deleteAll(db)
            try session.insert(db)
        }
    }

    /// The unexpired session whose token hashes to `tokenHash`.
    func consoleSession(tokenHash: String, at now: Date) async throws -> ConsoleSessionRecord? {
        try await database.tracedRead { db in
            try ConsoleSessionRecord.filter(key: tokenHash).filter(ConsoleSessionRecord.Columns.expiresAt > now)
                .fetchOne(db)
        }
    }

    func closeConsoleSession(tokenHash: String) async throws {
        try await database.tracedWrite { db in _ = try ConsoleSessionRecord.deleteOne(db, key: tokenHash) }
    }
}
