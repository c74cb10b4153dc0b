import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Requires a valid access token on every route behind it and records who the request acts
/// for in the context. Internal traffic is not trusted because it is internal: every service
/// verifies the token again with the same ``TokenVerifier`` the gateway uses.
public struct AuthenticationMiddleware<Context: ServiceRequestContextProtocol>: RouterMiddleware {
    let verifier: TokenVerifier

    public init(verifier: TokenVerifier) {
        self.verifier = verifier
    }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let token = Self.bearerToken(in: request.headers) else {
            throw ServiceError.authenticationRequired
        }
        var context = context
        let user = try await verifier.verify(token)
        context.user = user
        context.logger[metadataKey: "user_id"] = .string(user.userID)
        return try await next(request, context)
    }

    /// The token of an `Authorization: Bearer <token>` header, if there is exactly one.
    public static func bearerToken(in headers: HTTPFields) -> String? {
        let values = headers[values: .authorization]
        guard values.count == 1, let value = values.first else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        return token.isEmpty ? nil : token
    }
}
