import Contracts
import HTTPTypes

/// Pinhole's header names (Contracts' `HeaderName`) as typed HTTP field names.
extension HTTPField.Name {
    /// `x-request-id`.
    public static let requestID = HTTPField.Name(HeaderName.requestID)!
    /// `traceparent`.
    public static let traceparent = HTTPField.Name(HeaderName.traceparent)!
    /// `tracestate`.
    public static let tracestate = HTTPField.Name(HeaderName.tracestate)!
    /// `idempotency-key`.
    public static let idempotencyKey = HTTPField.Name(HeaderName.idempotencyKey)!
    /// `idempotent-replayed`.
    public static let idempotentReplayed = HTTPField.Name(HeaderName.idempotentReplay)!
    /// `ratelimit`.
    public static let rateLimit = HTTPField.Name(HeaderName.rateLimit)!
    /// `ratelimit-policy`.
    public static let rateLimitPolicy = HTTPField.Name(HeaderName.rateLimitPolicy)!
    /// `server-timing`.
    public static let serverTiming = HTTPField.Name(HeaderName.serverTiming)!
    /// `x-pinhole-client-ip`.
    public static let pinholeClientIP = HTTPField.Name(HeaderName.clientIP)!
}
