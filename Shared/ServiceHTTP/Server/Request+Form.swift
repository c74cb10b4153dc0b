import Hummingbird

extension Request {
    /// Whether the body is an HTML form (`application/x-www-form-urlencoded`).
    public var isForm: Bool {
        headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true
    }

    /// A server-rendered page's form (`application/x-www-form-urlencoded`, at most 16 KiB) as
    /// `Form`; anything else is a 400 `MALFORMED_REQUEST` that says `incomplete`.
    public func decodeForm<Form: Decodable>(as type: Form.Type, incomplete: String) async throws -> Form {
        let body = try await body.collect(upTo: 16 << 10)
        do {
            return try URLEncodedFormDecoder().decode(Form.self, from: String(buffer: body))
        } catch {
            throw ServiceError(.malformedRequest, incomplete)
        }
    }
}
