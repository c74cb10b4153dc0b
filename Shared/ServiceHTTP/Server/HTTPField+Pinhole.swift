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

extension HTTPFields {
    /// The headers of a server-rendered HTML page (the moderation console, auth's mail link
    /// pages): no script, no frames, no caching, no referrer (a page's URL may carry a
    /// token), forms only to this origin; styles from `styleSource` (`'self'` for a style
    /// sheet, `'unsafe-inline'` for a page that carries its own).
    public static func htmlPage(styleSource: String) -> HTTPFields {
        [
            .contentSecurityPolicy:
                "default-src 'none'; style-src \(styleSource); img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
            .xContentTypeOptions: "nosniff", HTTPField.Name("Referrer-Policy")!: "no-referrer",
            .cacheControl: "no-store",
            HTTPField.Name("X-Frame-Options")!: "DENY", .contentType: "text/html; charset=utf-8",
        ]
    }
}
