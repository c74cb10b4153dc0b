import Contracts
import Foundation
import GRDB
import ServiceKit

/// Recovery tokens: a ledger per user.
extension StreakStore {
    /// Applies `recovery_tokens.purchased`: the tokens are credited once per purchase.
    static func credit(_ event: RecoveryTokensPurchased, at now: Date, in db: Database) throws {
        try RecoveryTokenRecord(
            id: event.purchaseId, userId: event.userId, delta: event.tokens, reason: "purchased", createdAt: now
        ).insert(db, onConflict: .ignore)
    }

    /// The user's recovery token balance.
    func recoveryTokens(of userID: String) async throws -> Int {
        try await database.read { db in try Self.balance(of: userID, in: db) }
    }

    static func balance(of userID: String, in db: Database) throws -> Int {
        try RecoveryTokenRecord.filter(RecoveryTokenRecord.Columns.userId == userID)
            .select(sum(RecoveryTokenRecord.Columns.delta), as: Int?.self).fetchOne(db)?.flatMap { $0 } ?? 0
    }
}
