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
    /// Read in one pass over its bytes (every service parses the header of every request).
    public init?(header: String) {
        var header = header
        let parsed = header.withUTF8 { bytes -> (String, String, String)? in
            // `00-` + 32 hex digits + `-` + 16 + `-` + 2.
            guard bytes.count == 55, bytes[0] == Self.zero, bytes[1] == Self.zero, bytes[2] == Self.dash,
                bytes[35] == Self.dash, bytes[52] == Self.dash
            else { return nil }
            let trace = UnsafeBufferPointer(rebasing: bytes[3..<35])
            let parent = UnsafeBufferPointer(rebasing: bytes[36..<52])
            let flags = UnsafeBufferPointer(rebasing: bytes[53..<55])
            guard Self.isHex(trace), Self.isHex(parent), Self.isHex(flags),
                trace.contains(where: { $0 != Self.zero }), parent.contains(where: { $0 != Self.zero })
            else { return nil }
            return (
                String(decoding: trace, as: UTF8.self), String(decoding: parent, as: UTF8.self),
                String(decoding: flags, as: UTF8.self)
            )
        }
        guard let (traceID, parentID, flags) = parsed else { return nil }
        self.traceID = traceID
        self.parentID = parentID
        self.flags = flags
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

    private static let zero = UInt8(ascii: "0")
    private static let dash = UInt8(ascii: "-")

    /// Lowercase hex digits only.
    private static func isHex(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
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
