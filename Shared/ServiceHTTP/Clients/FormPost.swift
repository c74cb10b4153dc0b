import AsyncHTTPClient
import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1

/// A form POST to an outside provider (Apple, Twilio, Google's OAuth token endpoint): 10 s
/// timeout, at most 1 MiB read back, and any transport failure a 503 naming the provider (the
/// library's error text only in its ``ServiceError/cause``, for the log, never the caller).
public enum FormPost {
    public static func send(
        _ fields: [String: String], to url: String, authorization: String? = nil, provider: String,
        http: HTTPClient
    ) async throws -> InternalResponse {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        if let authorization { request.headers.add(name: "authorization", value: authorization) }
        request.body = .bytes(ByteBuffer(string: encode(fields)))
        do {
            let response = try await http.execute(request, timeout: .seconds(10))
            let body = try await response.body.collect(upTo: 1 << 20)
            return InternalResponse(status: response.status, headers: response.headers, body: body)
        } catch {
            throw ServiceError(
                .upstreamUnavailable, "\(provider) cannot be reached.", headers: [.retryAfter: "5"],
                cause: String(describing: error))
        }
    }

    /// `application/x-www-form-urlencoded`, keys sorted, everything but unreserved characters
    /// percent-encoded.
    public static func encode(_ fields: [String: String]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.sorted { $0.key < $1.key }.map { key, value in
            "\(key)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
    }
}
