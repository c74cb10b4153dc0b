import Contracts
import Foundation
import GRDB
import ServiceHTTP
import ServiceStore

/// Subscriptions and purchases reported by RevenueCat.
struct EntitlementStore: Sendable {
    let database: DatabasePool
    let outbox: Outbox

    /// Whether the user has a subscription that still gives access: active, cancelled but not
    /// yet expired, or in billing retry. (A statement the connection keeps: every session
    /// check asks.)
    static func isPremium(userID: String, now: Date, in db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT EXISTS (SELECT 1 FROM subscription WHERE user_id = ?
                        AND status IN ('active', 'cancelled', 'billing_retry')
                        AND (expires_at IS NULL OR expires_at > ?))
                    """), arguments: [userID, StoredDate(now)]) ?? false
    }

    enum WebhookOutcome: String {
        case applied, duplicate, ignored
    }

    /// Applies one RevenueCat event, once per event id, in one transaction:
    ///
    /// - `INITIAL_PURCHASE`, `RENEWAL`, `UNCANCELLATION`: the subscription is active until its
    ///   expiration; `CANCELLATION`: cancelled, still premium until it expires; `EXPIRATION`:
    ///   expired, premium ends; `BILLING_ISSUE` (`BILLING_ISSUE_DETECTED`): billing retry.
    /// - A purchase of a token pack (a product in `tokenPacks`) becomes
    ///   `recovery_tokens.purchased` for streak.
    /// - An event older than the last one applied to that subscription changes nothing; an
    ///   unknown user or event type is recorded and ignored (so RevenueCat stops retrying).
    func applyRevenueCat(_ event: RevenueCatEvent, tokenPacks: [String: Int], now: Date) async throws -> WebhookOutcome
    {
        try await database.tracedWrite { [outbox] db in
            try RevenueCatEventRecord(id: event.id, type: event.type, receivedAt: now).insert(db, onConflict: .ignore)
            guard db.changesCount == 1 else { return .duplicate }
            guard let userID = event.appUserId, let productID = event.productId,
                try UserRecord.filter(key: userID).live().isEmpty(db) == false
            else { return .ignored }
            if let tokens = tokenPacks[productID], ["INITIAL_PURCHASE", "NON_RENEWING_PURCHASE"].contains(event.type) {
                try outbox.enqueue(
                    RecoveryTokensPurchased(userId: userID, tokens: tokens, productId: productID, purchaseId: event.id),
                    in: db)
                return .applied
            }
            let status: String
            switch event.type {
            case "INITIAL_PURCHASE", "RENEWAL", "UNCANCELLATION": status = "active"
            case "CANCELLATION": status = "cancelled"
            case "EXPIRATION": status = "expired"
            case "BILLING_ISSUE", "BILLING_ISSUE_DETECTED": status = "billing_retry"
            default: return .ignored
            }
            let eventAt = event.eventTimestampMs.map { Date(timeIntervalSince1970: Double($0) / 1000) } ?? now
            let expiresAt = event.expirationAtMs.map { Date(timeIntervalSince1970: Double($0) / 1000) }
            // An aggregate upsert: only a newer event moves the subscription, and a missing
            // expiration keeps the known one.
            try db.execute(
                sql: """
                    INSERT INTO subscription (user_id, product_id, status, expires_at, event_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (user_id, product_id) DO UPDATE SET status = excluded.status,
                        expires_at = coalesce(excluded.expires_at, subscription.expires_at),
                        event_at = excluded.event_at, updated_at = excluded.updated_at
                    WHERE excluded.event_at >= subscription.event_at
                    """, arguments: [userID, productID, status, expiresAt, eventAt, now])
            return .applied
        }
    }
}
