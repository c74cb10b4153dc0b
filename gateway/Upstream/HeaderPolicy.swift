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
        var upstream = HTTPFields()
        upstream.reserveCapacity(fields.count + 4)
        for field in fields where passes(field.name.canonicalName) {
            upstream.append(field)
        }
        for (name, value) in InternalClient.propagationHeaders() {
            if let name = HTTPField.Name(name) { upstream.append(HTTPField(name: name, value: value)) }
        }
        if let clientAddress, let name = HTTPField.Name(HeaderName.clientIP) {
            upstream.append(HTTPField(name: name, value: clientAddress))
        }
        return upstream
    }

    /// The headers a client receives: the service's, minus hop-by-hop and internal ones.
    static func downstreamFields(from fields: HTTPFields) -> HTTPFields {
        var downstream = HTTPFields()
        downstream.reserveCapacity(fields.count)
        for field in fields where passes(field.name.canonicalName) {
            downstream.append(field)
        }
        return downstream
    }

    private static func passes(_ name: String) -> Bool {
        !dropped.contains(name) && !name.hasPrefix(HeaderName.internalPrefix)
    }
}
