import HTTPTypes
import ServiceHTTP

/// Which headers cross the gateway, in each direction.
enum HeaderPolicy {
    /// Hop-by-hop headers (RFC 9110 §7.6.1), `expect` (the gateway answers it), and those the
    /// gateway sets itself.
    static let dropped: Set<String> = [
        "connection", "expect", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te",
        "trailer", "transfer-encoding", "upgrade", "host", "x-forwarded-for", "x-forwarded-host",
        "x-forwarded-proto", "forwarded", "x-request-id", "traceparent", "tracestate", "http2-settings",
    ]

    /// The headers a service receives: the client's, minus hop-by-hop headers and every
    /// internal (`x-pinhole-*`) header a client might try to smuggle in, plus the ones the
    /// gateway vouches for.
    static func upstreamFields(from fields: HTTPFields, clientAddress: String?) -> HTTPFields {
        var upstream = passing(fields, extra: 4)
        for (name, value) in InternalClient.propagationHeaders() {
            if let name = HTTPField.Name(name) { upstream.append(HTTPField(name: name, value: value)) }
        }
        if let clientAddress { upstream.append(HTTPField(name: clientIP, value: clientAddress)) }
        return upstream
    }

    /// The same for a request relayed on the event loop (``StreamRelay``), which has no task
    /// context to carry its trace: its request id and span are given.
    static func upstreamFields(
        from fields: HTTPFields, clientAddress: String, requestID: String, span: TraceParent
    ) -> HTTPFields {
        var upstream = passing(fields, extra: 4)
        upstream.append(once(.requestID, requestID))
        upstream.append(once(traceparent, span.description))
        if let state = fields[tracestate] { upstream.append(HTTPField(name: tracestate, value: state)) }
        upstream.append(HTTPField(name: clientIP, value: clientAddress))
        return upstream
    }

    /// A field whose value is this request's alone (an id): kept out of HPACK's dynamic table,
    /// where it would only push out the values that do repeat (a client's token) on both ends
    /// of a connection.
    static func once(_ name: HTTPField.Name, _ value: String) -> HTTPField {
        var field = HTTPField(name: name, value: value)
        field.indexingStrategy = .avoid
        return field
    }

    private static let clientIP = HTTPField.Name(HeaderName.clientIP)!
    /// The kit's name for it (HTTPTypes has one too).
    static let traceparent = HTTPField.Name(HeaderName.traceparent)!
    private static let tracestate = HTTPField.Name(HeaderName.tracestate)!

    private static func passing(_ fields: HTTPFields, extra: Int) -> HTTPFields {
        var passed = HTTPFields()
        passed.reserveCapacity(fields.count + extra)
        for field in fields where passes(field.name.canonicalName) {
            passed.append(field)
        }
        return passed
    }

    /// The headers a client receives: the service's, minus hop-by-hop and internal ones.
    static func downstreamFields(from fields: HTTPFields) -> HTTPFields {
        passing(fields, extra: 0)
    }

    private static func passes(_ name: String) -> Bool {
        !dropped.contains(name) && !name.hasPrefix(HeaderName.internalPrefix)
    }
}
