/// Header names that cross process boundaries.
public enum HeaderName {
    /// Identifies one request across the gateway, the services and their logs.
    public static let requestID = "x-request-id"
    /// W3C Trace Context.
    public static let traceparent = "traceparent"
    /// W3C Trace Context vendor state, forwarded untouched.
    public static let tracestate = "tracestate"
    /// Makes a creating request safe to retry.
    public static let idempotencyKey = "idempotency-key"
    /// Set by the gateway when it replays a stored answer for an `Idempotency-Key`.
    public static let idempotentReplay = "idempotent-replayed"
    /// IETF RateLimit header fields.
    public static let rateLimit = "ratelimit"
    /// IETF RateLimit-Policy header field.
    public static let rateLimitPolicy = "ratelimit-policy"
    /// Seconds to wait before retrying a 429 or 503.
    public static let retryAfter = "retry-after"
    /// W3C Server Timing: how long a service spent on named parts of its answer.
    public static let serverTiming = "server-timing"

    /// Every header whose name starts with this prefix is internal: the gateway removes any a
    /// client sends and sets the ones it owns itself.
    public static let internalPrefix = "x-pinhole-"
    /// The client's address as the gateway saw it.
    public static let clientIP = "x-pinhole-client-ip"
}
