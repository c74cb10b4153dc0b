import Foundation
import HTTPTypes

extension RatePolicy {
    /// The verdict for one more action when the actions already counted took place at `times`:
    /// a sliding window over what the caller stored (a user's challenges of the last hour,
    /// their spots of the last day), so a limit holds across restarts and, decided in the
    /// transaction that stores the action, two requests at once cannot both slip under it.
    /// Times outside the window are ignored.
    public func decide(after times: [Date], now: Date) -> RateDecision {
        let start = now.addingTimeInterval(-window)
        let recent = times.filter { $0 > start }.sorted()
        // Whole seconds until an action at `time` leaves the window (never more than a window).
        let wholeAgain = { (time: Date) in
            min(Int(window), StoredTime.wholeSeconds(from: now, until: time.addingTimeInterval(window)))
        }
        guard recent.count < limit else {
            // One more is allowed once enough of the oldest have left the window.
            let freeing = recent[recent.count - limit]
            return RateDecision(
                allowed: false, remaining: 0, resetAfter: wholeAgain(recent[recent.count - 1]),
                retryAfter: max(1, wholeAgain(freeing)))
        }
        return RateDecision(
            allowed: true, remaining: limit - recent.count - 1, resetAfter: wholeAgain(now), retryAfter: 0)
    }
}

extension RateDecision {
    /// `RateLimit-Policy` and `RateLimit`, and `Retry-After` on a refusal.
    public func headers(for policy: RatePolicy) -> HTTPFields {
        var headers: HTTPFields = [.rateLimitPolicy: policy.policyHeader, .rateLimit: header(for: policy)]
        if !allowed { headers[.retryAfter] = String(retryAfter) }
        return headers
    }
}

extension ServiceError {
    /// 429 `RATE_LIMIT_EXCEEDED` for a refused `decision`, with its headers; `message` says what
    /// the limit is in the caller's words.
    public static func rateLimited(_ message: String, policy: RatePolicy, decision: RateDecision) -> ServiceError {
        ServiceError(
            .rateLimitExceeded, "\(message) Retry in \(decision.retryAfter) s.", headers: decision.headers(for: policy))
    }
}
