import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import Logging

/// Requires a valid access token on every route behind it and records who the request acts
/// for in the context. Guest tokens can only read (GET and HEAD), and so can a suspended
/// user (`ACCOUNT_SUSPENDED`) outside the few routes that let them end their sessions, delete
/// their account or appeal (`allowsSuspended`). Internal traffic is not trusted because it is
/// internal: every service verifies the token again with the same ``TokenVerifier`` the
/// gateway uses.
public struct AuthenticationMiddleware<Context: ServiceRequestContextProtocol>: RouterMiddleware {
    let verifier: TokenVerifier
    let allowsSuspended: Bool

    public init(verifier: TokenVerifier, allowsSuspended: Bool = false) {
        self.verifier = verifier
        self.allowsSuspended = allowsSuspended
    }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard let token = Self.bearerToken(in: request.headers) else {
            throw ServiceError.authenticationRequired
        }
        var context = context
        let user = try await verifier.verify(token)
        if user.isGuest, request.method != .get, request.method != .head {
            throw ServiceError.guestReadOnly
        }
        if let until = user.suspendedUntil, !allowsSuspended, request.method != .get, request.method != .head {
            throw ServiceError.accountSuspended(until: until)
        }
        context.user = user
        context.logger[metadataKey: "user_id"] = .string(user.userID)
        return try await next(request, context)
    }

    /// The token of an `Authorization: Bearer <token>` header, if there is exactly one.
    /// Runs on every request, so it works on UTF-8 bytes rather than Foundation string APIs.
    public static func bearerToken(in headers: HTTPFields) -> String? {
        guard let value = headers[.authorization] else { return nil }
        let bytes = value.utf8
        let scheme = "bearer ".utf8
        guard bytes.count > scheme.count,
            zip(bytes.prefix(scheme.count), scheme).allSatisfy({
                $0 == $1 || ($0 | 0x20 == $1 && $1 >= 0x61 && $1 <= 0x7A)
            })
        else { return nil }
        let token = bytes.dropFirst(scheme.count).drop { $0 == 0x20 }
        guard !token.isEmpty, !token.contains(0x20), !token.contains(0x2C),
            headers[values: .authorization].count == 1
        else { return nil }
        return String(Substring(token))
    }
}
