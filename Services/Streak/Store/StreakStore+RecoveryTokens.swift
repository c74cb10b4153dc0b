import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Recovery tokens: a ledger per user. Tokens are bought (RevenueCat, through auth), earned
/// (one each for both of a pair at every 30 days of their streak) and, for subscribers,
/// three a calendar month (UTC), credited the first time a Pro user reads or spends tokens
/// that month.
extension StreakStore {
    /// Pro's tokens per calendar month.
    static let monthlyTokens = 3
    /// A streak earns each member a token every this many days.
    static let earningDays = 30
    /// How many transactions the balance shows.
    static let shownTransactions = 20

    /// Applies `recovery_tokens.purchased`: the tokens are credited once per purchase.
    static func credit(_ event: RecoveryTokensPurchased, at now: Date, in db: Database) throws {
        try RecoveryTokenRecord(
            id: event.purchaseId, userId: event.userId, delta: event.tokens,
            reason: RecoveryTransactionType.purchased.rawValue, createdAt: now
        ).insert(db, onConflict: .ignore)
    }

    /// Credits a token to both of `streak`'s members when `day` took it to a multiple of 30.
    static func creditEarned(_ streak: StreakRecord, day: LocalDay, count: Int, at now: Date, in db: Database) throws {
        guard count > 0, count.isMultiple(of: earningDays) else { return }
        for user in streak.members {
            try RecoveryTokenRecord(
                id: "earned:\(streak.id):\(day):\(user)", userId: user, delta: 1,
                reason: RecoveryTransactionType.earned.rawValue, streakId: streak.id, createdAt: now
            ).insert(db, onConflict: .ignore)
        }
    }

    /// Credits a Pro user's tokens for the calendar month (UTC) of `now`, once.
    static func creditMonthly(_ user: String, at now: Date, in db: Database) throws {
        let month = now.formatted(.iso8601.year().month())
        try RecoveryTokenRecord(
            id: "monthly:\(user):\(month)", userId: user, delta: monthlyTokens,
            reason: RecoveryTransactionType.monthly.rawValue, createdAt: now
        ).insert(db, onConflict: .ignore)
    }

    /// The user's balance and latest transactions (a Pro user's monthly tokens credited first).
    func recoveryTokens(of user: String, premium: Bool, at now: Date) async throws -> RecoveryTokenBalance {
        try await database.tracedWrite { db in
            if premium { try Self.creditMonthly(user, at: now, in: db) }
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT reason, delta, streak_id, created_at,
                               SUM(delta) OVER (ORDER BY created_at, rowid) AS balance_after
                        FROM recovery_token WHERE user_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?
                        """), arguments: [user, Self.shownTransactions])
            return RecoveryTokenBalance(
                balance: try Self.balance(of: user, in: db),
                transactions: rows.map { row in
                    RecoveryTransaction(
                        type: RecoveryTransactionType(rawValue: row["reason"]) ?? .purchased, amount: row["delta"],
                        balanceAfter: row["balance_after"], streakId: row["streak_id"], createdAt: row["created_at"])
                })
        }
    }

    static func balance(of userID: String, in db: Database) throws -> Int {
        try RecoveryTokenRecord.filter(RecoveryTokenRecord.Columns.userId == userID)
            .select(sum(RecoveryTokenRecord.Columns.delta), as: Int?.self).fetchOne(db)?.flatMap { $0 } ?? 0
    }
}
