import Foundation
import Synchronization

/// Rate-limit classes of the route table.
enum RateClass: String, Sendable, CaseIterable {
    /// Sign-up, sign-in and refresh: keyed by client address, tight.
    case auth
    /// GET and HEAD.
    case read
    /// Every other method.
    case write
    /// Starting an upload (SkateHubba: 20 per hour).
    case upload
    /// Searching people (`GET /v1/friends/search`): the user directory, read a page at a time,
    /// on a budget of its own so that it cannot be walked at the read class's pace.
    case search

    var defaultPolicy: RatePolicy {
        switch self {
        case .auth: RatePolicy(name: rawValue, limit: 20, window: 60)
        case .read: RatePolicy(name: rawValue, limit: 600, window: 60)
        case .write: RatePolicy(name: rawValue, limit: 120, window: 60)
        case .upload: RatePolicy(name: rawValue, limit: 20, window: 3600)
        case .search: RatePolicy(name: rawValue, limit: 60, window: 60)
        }
    }
}

/// `limit` requests per `window` seconds, with a burst of up to `limit`.
struct RatePolicy: Sendable, Equatable {
    let name: String
    let limit: Int
    let window: TimeInterval

    /// Seconds between requests at the sustained rate (GCRA's emission interval T).
    var interval: TimeInterval { window / Double(limit) }

    /// `RateLimit-Policy` value (draft-ietf-httpapi-ratelimit-headers).
    var policyHeader: String { "\"\(name)\";q=\(limit);w=\(Int(window))" }
}

/// The verdict for one request.
struct RateDecision: Sendable, Equatable {
    let allowed: Bool
    /// Requests left right now.
    let remaining: Int
    /// Seconds until the quota is full again.
    let resetAfter: Int
    /// When refused: seconds until one request is allowed.
    let retryAfter: Int

    func header(for policy: RatePolicy) -> String {
        "\"\(policy.name)\";r=\(remaining);t=\(resetAfter)"
    }
}

/// The generic cell rate algorithm: one number per key (the theoretical arrival time), no
/// timers, exact at any request rate. Keys are per class and per user (or client address).
///
/// The table sits behind a `Mutex`: the check is a few arithmetic operations on a hot path,
/// and an actor hop per request would cost more than the work. Expired keys (whose TAT is in
/// the past, which is the same as having no entry) are swept when the table grows.
final class RateLimiter: Sendable {
    private let state = Mutex<State>(State())
    private let sweepThreshold: Int

    struct State {
        var arrival: [String: Double] = [:]
        var nextSweepAt = 0
    }

    init(sweepThreshold: Int = 100_000) {
        self.sweepThreshold = sweepThreshold
    }

    /// Counts one request for `key` under `policy` at time `now` (seconds).
    func check(key: String, policy: RatePolicy, now: Double) -> RateDecision {
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
