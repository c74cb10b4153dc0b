import Contracts
import HTTPTypes
import Hummingbird
import Logging
import ServiceContextModule
import Tracing

/// Gives every request an id and a span of the W3C trace it belongs to.
///
/// An `x-request-id` of up to 128 safe characters is kept, so one id follows a request from
/// the gateway through every service; otherwise a new one is made. A valid `traceparent`
/// continues its trace, otherwise a new trace starts. Both go on every log line of the
/// request, into ``ServiceContext`` for outgoing calls, and back in the response headers.
public struct RequestTracingMiddleware<Context: ServiceRequestContextProtocol>: RouterMiddleware {
    let entropy: any Entropy

    public init(entropy: any Entropy) {
        self.entropy = entropy
    }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        let requestID = Self.requestID(of: request.headers, entropy: entropy)
        let incoming = request.headers[.traceparent].flatMap(TraceParent.init(header:))
        var outer = ServiceContext.current ?? .topLevel
        if Telemetry.isEnabled { outer = Telemetry.extracting(request.headers, into: outer) }
        let name = Telemetry.spanName(method: request.method.rawValue, path: request.uri.path)
        // Health probes and scrapes come every few seconds and say nothing about requests.
        let probe = request.uri.path.hasPrefix("/health") || request.uri.path == "/metrics"
        return try await Telemetry.withSpan(name, kind: .server, context: outer, traced: !probe) {
            otelSpan, otelParent in
            // With telemetry the span's own ids; without, a child of the caller's or a new trace.
            let span = otelParent ?? incoming?.child(entropy: entropy) ?? TraceParent.root(entropy: entropy)
            let trace = RequestTrace(requestID: requestID, span: span, traceState: request.headers[.tracestate])
            context.requestID = requestID
            context.logger[metadataKey: "request_id"] = .string(requestID)
            context.logger[metadataKey: "trace_id"] = .string(span.traceID)
            otelSpan?.attributes["http.request.method"] = request.method.rawValue
            otelSpan?.attributes["url.path"] = request.uri.path
            otelSpan?.attributes["pinhole.request_id"] = requestID

            var serviceContext = otelSpan?.context ?? outer
            serviceContext.requestTrace = trace
            var response = try await ServiceContext.withValue(serviceContext) {
                try await next(request, context)
            }
            otelSpan?.attributes["http.response.status_code"] = response.status.code
            if response.status.code >= 500 { otelSpan?.setStatus(SpanStatus(code: .error)) }
            response.headers[.requestID] = requestID
            response.headers[.traceparent] = span.description
            return response
        }
    }

    /// A request's id: the caller's `x-request-id` if acceptable, else a new one.
    public static func requestID(of fields: HTTPFields, entropy: some Entropy) -> String {
        fields[.requestID].flatMap(acceptableRequestID) ?? entropy.token(bytes: 12)
    }

    /// `value` if it may be a request's id (1–128 letters, digits, `-`, `_` or `.`), else nil.
    public static func acceptableRequestID(_ value: String) -> String? {
        guard (1...128).contains(value.utf8.count),
            value.utf8.allSatisfy({ byte in
                (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                    || byte == 45 || byte == 95 || byte == 46
            })
        else { return nil }
        return value
    }
}
