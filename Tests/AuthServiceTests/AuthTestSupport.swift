import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceKit
import TestSupport

@testable import AuthService

/// Runs `body` against an in-process auth application over a fresh data directory.
func withAuth(
    clock: ManualClock = ManualClock(Date()), config: [String: String] = [:],
    directory existing: TestDataDirectory? = nil,
    _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
) async throws {
    let directory = try existing ?? TestDataDirectory.make()
    defer { if existing == nil { directory.remove() } }
    let app = try await buildApplication(reader: directory.reader(config), clock: clock)
    try await app.test(.router) { client in try await body(client) }
}

extension TestClientProtocol {
    /// Sends JSON and returns the response.
    func post(
        _ path: String, _ json: some Encodable, token: String? = nil, headers: HTTPFields = [:]
    ) async throws
        -> TestResponse
    {
        var headers = headers
        headers[.contentType] = "application/json"
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await execute(
            uri: path, method: .post, headers: headers,
            body: ByteBuffer(bytes: try JSONCoding.encoder().encode(json)))
    }

    func get(_ path: String, token: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        return try await execute(uri: path, method: .get, headers: headers)
    }

    /// Registers and signs in; returns the token pair.
    func signUp(_ email: String, password: String = "correct horse battery") async throws -> TokenResponse {
        _ = try await post("/v1/auth/register", RegisterRequest(email: email, password: password))
        let response = try await post("/v1/auth/login", LoginRequest(email: email, password: password))
        return try response.json(TokenResponse.self)
    }
}

extension TestResponse {
    func json<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONCoding.decoder().decode(type, from: Data(body.readableBytesView))
    }

    var error: ErrorBody? {
        try? json(ErrorEnvelope.self).error
    }
}
