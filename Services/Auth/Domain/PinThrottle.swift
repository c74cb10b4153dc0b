import Crypto
import Foundation
import ServiceHTTP

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
    static func blockedUntil(_ attempts: PinAttemptRecord, now: Date) -> Date? {
        attempts.blockedUntil.flatMap { $0 > now ? $0 : nil }
    }

    /// The key's counter after one more failure at `now`, given what it held before.
    static func failure(
        after previous: PinAttemptRecord?, key: String, freeAttempts: Int, maxDelay: TimeInterval, now: Date
    ) -> PinAttemptRecord {
        var failures = 1
        if let previous, now.timeIntervalSince(previous.lastFailureAt) < memory {
            failures = previous.failures + 1
        }
        let over = failures - freeAttempts
        let blockedUntil: Date? =
            over > 0 ? now.addingTimeInterval(min(maxDelay, pow(2, Double(min(over - 1, 30))))) : nil
        return PinAttemptRecord(key: key, failures: failures, lastFailureAt: now, blockedUntil: blockedUntil)
    }
}
