import Crypto
import Foundation
import GRDB
import ServiceKit

/// Limits failed PIN sign-ins per customer and per device, with delays that double.
///
/// - Counters are keyed by the customer reference as typed (known or not, so a delay never
///   tells whether a reference exists) and by device (client address and installation id).
/// - After the free attempts, each failure blocks the key for 1, 2, 4 … seconds, up to the
///   configured maximum; a success clears both counters, and a quiet day forgets them.
/// - A device on which the customer has signed in before is not held back by the customer
///   counter, only by its own: someone guessing elsewhere cannot lock the real customer out.
enum PinThrottle {
    struct Policy: Sendable, Equatable {
        var customerFreeAttempts: Int
        var deviceFreeAttempts: Int
        var maxCustomerDelay: TimeInterval
        var maxDeviceDelay: TimeInterval
    }

    /// Failures older than this are forgotten.
    static let memory: TimeInterval = 86_400

    static func customerKey(tenantID: String, customerRef: String) -> String {
        "customer:" + digest("\(tenantID)\u{0}\(customerRef.lowercased())")
    }

    static func deviceKey(tenantID: String, address: String, deviceID: String?) -> String {
        "device:" + digest("\(tenantID)\u{0}\(address)\u{0}\(deviceID ?? "")")
    }

    private static func digest(_ text: String) -> String {
        Hex.encode(SHA256.hash(data: Data(text.utf8)))
    }

    /// When the key may try again, if it is blocked now.
    static func blockedUntil(_ key: String, now: Date, in db: Database) throws -> Date? {
        let until = try Date.fetchOne(db, sql: "SELECT blocked_until FROM pin_attempt WHERE key = ?", arguments: [key])
        return until.flatMap { $0 > now ? $0 : nil }
    }

    /// Counts a failure against `key`.
    static func recordFailure(
        _ key: String, freeAttempts: Int, maxDelay: TimeInterval, now: Date, in db: Database
    )
        throws
    {
        let row = try Row.fetchOne(
            db, sql: "SELECT failures, last_failure_at FROM pin_attempt WHERE key = ?", arguments: [key])
        var failures = 1
        if let row, let last: Date = row["last_failure_at"], now.timeIntervalSince(last) < memory {
            failures = (row["failures"] as Int) + 1
        }
        let over = failures - freeAttempts
        let blockedUntil: Date? =
            over > 0 ? now.addingTimeInterval(min(maxDelay, pow(2, Double(min(over - 1, 30))))) : nil
        try db.execute(
            sql: """
                INSERT INTO pin_attempt (key, failures, last_failure_at, blocked_until) VALUES (?, ?, ?, ?)
                ON CONFLICT(key) DO UPDATE SET failures = excluded.failures,
                    last_failure_at = excluded.last_failure_at, blocked_until = excluded.blocked_until
                """, arguments: [key, failures, now, blockedUntil])
    }

    /// Clears `keys` after a successful sign-in.
    static func clear(_ keys: [String], in db: Database) throws {
        for key in keys {
            try db.execute(sql: "DELETE FROM pin_attempt WHERE key = ?", arguments: [key])
        }
    }
}
