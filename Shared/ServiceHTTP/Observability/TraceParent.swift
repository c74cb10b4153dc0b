import ServiceContextModule

/// A W3C Trace Context `traceparent` value (version 00): which trace a request belongs to
/// and which span called it.
public struct TraceParent: Sendable, Equatable, CustomStringConvertible {
    /// 32 lowercase hex digits, never all zero.
    public let traceID: String
    /// 16 lowercase hex digits, never all zero: the span that made this call.
    public let parentID: String
    /// Trace flags, 2 hex digits (`01` = sampled).
    public let flags: String

    /// Parses a header value; nil if it is not a valid version-00 `traceparent`.
    public init?(header: String) {
        let parts = header.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "00",
            Self.isHex(parts[1], count: 32), Self.isHex(parts[2], count: 16), Self.isHex(parts[3], count: 2),
            parts[1] != Substring(String(repeating: "0", count: 32)),
            parts[2] != Substring(String(repeating: "0", count: 16))
        else { return nil }
        self.traceID = String(parts[1])
        self.parentID = String(parts[2])
        self.flags = String(parts[3])
    }

    init(traceID: String, parentID: String, flags: String) {
        self.traceID = traceID
        self.parentID = parentID
        self.flags = flags
    }

    /// A new trace, started here.
    public static func root(entropy: some Entropy) -> TraceParent {
        let bytes = entropy.bytes(24)
        return TraceParent(traceID: Hex.encode(bytes.prefix(16)), parentID: Hex.encode(bytes.suffix(8)), flags: "01")
    }

    /// The same trace with a new span id: the span of this process's work.
    public func child(entropy: some Entropy) -> TraceParent {
        TraceParent(traceID: traceID, parentID: Hex.encode(entropy.bytes(8)), flags: flags)
    }

    /// The header value.
    public var description: String { "00-\(traceID)-\(parentID)-\(flags)" }

    private static func isHex(_ text: Substring, count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

}

/// The request-scoped values that outgoing calls carry on: the request id and the current span.
public struct RequestTrace: Sendable, Equatable {
    /// The request id, forwarded as `x-request-id`.
    public let requestID: String
    /// The span of the work this process does for the request.
    public let span: TraceParent
    /// Vendor trace state, forwarded untouched.
    public let traceState: String?
}

extension ServiceContext {
    private enum RequestTraceKey: ServiceContextKey {
        typealias Value = RequestTrace
    }

    /// The trace of the request being handled, if any; set by ``RequestTracingMiddleware``.
    public var requestTrace: RequestTrace? {
        get { self[RequestTraceKey.self] }
        set { self[RequestTraceKey.self] = newValue }
    }
}
