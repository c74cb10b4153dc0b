import AsyncHTTPClient
import HTTPTypes
import NIOHTTP1
import ServiceKit

/// Which headers cross the gateway, in each direction.
enum HeaderPolicy {
    /// Hop-by-hop headers (RFC 9110 §7.6.1) and those the gateway sets itself.
    static let dropped: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "proxy-authenticate", "proxy-authorization", "te",
        "trailer", "transfer-encoding", "upgrade", "host", "x-forwarded-for", "x-forwarded-host",
        "x-forwarded-proto", "forwarded", "x-request-id", "traceparent", "tracestate", "http2-settings",
    ]

    /// The headers a service receives: the client's, minus hop-by-hop headers and every
    /// internal (`x-pinhole-*`) header a client might try to smuggle in, plus the ones the
    /// gateway vouches for.
    static func upstreamHeaders(from fields: HTTPFields, clientAddress: String?) -> HTTPHeaders {
        var headers = HTTPHeaders()
        headers.reserveCapacity(fields.count + 4)
        for field in fields {
            let name = field.name.canonicalName
            if dropped.contains(name) || name.hasPrefix(HeaderName.internalPrefix) { continue }
            headers.add(name: name, value: field.value)
        }
        headers.add(contentsOf: InternalClient.propagationHeaders())
        if let clientAddress {
            headers.add(name: HeaderName.clientIP, value: clientAddress)
        }
        return headers
    }

    /// The headers a client receives: the service's, minus hop-by-hop and internal ones.
    static func downstreamHeaders(from headers: HTTPHeaders) -> HTTPFields {
        var fields = HTTPFields()
        fields.reserveCapacity(headers.count)
        for (name, value) in headers {
            let lowered = name.lowercased()
            if dropped.contains(lowered) || lowered.hasPrefix(HeaderName.internalPrefix) { continue }
            if let fieldName = HTTPField.Name(lowered) {
                fields.append(HTTPField(name: fieldName, value: value))
            }
        }
        return fields
    }
}
