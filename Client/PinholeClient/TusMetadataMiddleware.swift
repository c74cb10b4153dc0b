import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends `Upload-Metadata` as tus writes it. The generated client percent-encodes header values
/// (the OpenAPI `simple` style), which turns the pairs' space and comma into `%20` and `%2C`;
/// tus (§ Upload-Metadata) wants them as they are, and base64 never needs escaping.
struct TusMetadataMiddleware: ClientMiddleware {
    static let uploadMetadata = HTTPField.Name("Upload-Metadata")!

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        if let value = request.headerFields[Self.uploadMetadata] {
            request.headerFields[Self.uploadMetadata] = value.removingPercentEncoding ?? value
        }
        return try await next(request, body, baseURL)
    }
}
