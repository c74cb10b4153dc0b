import Contracts
import Foundation
import GRDB

extension StreakStore {
    /// Applies `user.deleted`: the user's friend requests, streaks (their friends' streaks
    /// with them end with them), snaps, recovery tokens and blocks go.
    static func erase(userID: String, in db: Database) throws {
        try db.execute(
            sql: "DELETE FROM friend_request WHERE from_user_id = ?1 OR to_user_id = ?1", arguments: [userID])
        try db.execute(sql: "DELETE FROM streak WHERE user_a = ?1 OR user_b = ?1", arguments: [userID])
        try db.execute(sql: "DELETE FROM snap WHERE user_id = ?1", arguments: [userID])
        try db.execute(sql: "DELETE FROM recovery_token WHERE user_id = ?1", arguments: [userID])
        try db.execute(sql: "DELETE FROM block WHERE blocker_id = ?1 OR blocked_id = ?1", arguments: [userID])
    }
}

extension StreakStore {
    /// Applies `recovery_tokens.purchased`: the tokens are credited once per purchase.
    static func credit(_ event: RecoveryTokensPurchased, at now: Date, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT OR IGNORE INTO recovery_token (id, user_id, delta, reason, created_at)
                VALUES (?, ?, ?, 'purchased', ?)
                """, arguments: [event.purchaseId, event.userId, event.tokens, now])
    }

    /// The user's recovery token balance.
    func recoveryTokens(of userID: String) async throws -> Int {
        try await database.read { db in
            try Int.fetchOne(
                db, sql: "SELECT coalesce(sum(delta), 0) FROM recovery_token WHERE user_id = ?", arguments: [userID])
                ?? 0
        }
    }
}
