import Foundation
import Synchronization

/// `limit` requests per `window` seconds, with a burst of up to `limit`.
public struct RatePolicy: Sendable, Equatable {
    public let name: String
    public let limit: Int
    public let window: TimeInterval

    public init(name: String, limit: Int, window: TimeInterval) {
        self.name = name
        self.limit = limit
        self.window = window
    }

    /// Seconds between requests at the sustained rate (GCRA's emission interval T).
    public var interval: TimeInterval { window / Double(limit) }

    /// `RateLimit-Policy` value (draft-ietf-httpapi-ratelimit-headers).
    public var policyHeader: String { "\"\(name)\";q=\(limit);w=\(Int(window))" }
}

/// The verdict for one request.
public struct RateDecision: Sendable, Equatable {
    public let allowed: Bool
    /// Requests left right now.
    public let remaining: Int
    /// Seconds until the quota is full again.
    public let resetAfter: Int
    /// When refused: seconds until one request is allowed.
    public let retryAfter: Int

    public init(allowed: Bool, remaining: Int, resetAfter: Int, retryAfter: Int) {
        self.allowed = allowed
        self.remaining = remaining
        self.resetAfter = resetAfter
        self.retryAfter = retryAfter
    }

    public func header(for policy: RatePolicy) -> String {
        "\"\(policy.name)\";r=\(remaining);t=\(resetAfter)"
    }
}

/// The generic cell rate algorithm: one number per key (the theoretical arrival time), no
/// timers, exact at any request rate. Keys are per class and per user (or client address).
///
/// The table sits behind a `Mutex`: the check is a few arithmetic operations on a hot path,
/// and an actor hop per request would cost more than the work. Expired keys (whose TAT is in
/// the past, which is the same as having no entry) are swept when the table grows.
public final class RateLimiter: Sendable {
    private let state = Mutex<State>(State())
    private let sweepThreshold: Int

    struct State {
        var arrival: [String: Double] = [:]
        var nextSweepAt = 0
    }

    public init(sweepThreshold: Int = 100_000) {
        self.sweepThreshold = sweepThreshold
    }

    /// Counts one request for `key` under `policy` at time `now` (seconds).
    public func check(key: String, policy: RatePolicy, now: Double) -> RateDecision {
        let interval = policy.interval
        let tolerance = policy.window - interval
        let fullKey = policy.name + "|" + key
        return state.withLock { state in
            if state.arrival.count >= max(state.nextSweepAt, sweepThreshold) {
                state.arrival = state.arrival.filter { $0.value > now }
                state.nextSweepAt = state.arrival.count * 2
            }
            let tat = max(state.arrival[fullKey] ?? now, now)
            if tat - now > tolerance {
                let retry = tat - tolerance - now
                return RateDecision(
                    allowed: false, remaining: 0, resetAfter: Int((tat - now).rounded(.up)),
                    retryAfter: max(1, Int(retry.rounded(.up))))
            }
            let next = tat + interval
            state.arrival[fullKey] = next
            let remaining = Int(((policy.window - (next - now)) / interval).rounded(.down))
            return RateDecision(
                allowed: true, remaining: max(0, remaining), resetAfter: Int((next - now).rounded(.up)), retryAfter: 0)
        }
    }
}
