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
    /// Registers and signs in; returns the token pair.
    func signUp(_ email: String, password: String = "correct horse battery") async throws -> TokenResponse {
        _ = try await post("/v1/auth/register", RegisterRequest(email: email, password: password))
        let response = try await post("/v1/auth/login", LoginRequest(email: email, password: password))
        return try response.json(TokenResponse.self)
    }
}
