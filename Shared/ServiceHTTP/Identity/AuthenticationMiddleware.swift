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
    /// Runs on every request (the gateway's relay included), so it reads the field's UTF-8 in
    /// one pass, without building arrays or substrings on the way.
    public static func bearerToken(in headers: HTTPFields) -> String? {
        var found: String?
        for field in headers where field.name == .authorization {
            guard found == nil else { return nil }
            found = field.value
        }
        guard var value = found else { return nil }
        return value.withUTF8(token(afterBearer:))
    }

    /// The token in a header value `Bearer <token>` (the scheme in any case, spaces after it),
    /// nil when it is missing or holds a space or a comma (two credentials).
    private static func token(afterBearer bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let scheme: StaticString = "bearer "
        let schemeLength = scheme.utf8CodeUnitCount
        guard bytes.count > schemeLength else { return nil }
        for index in 0..<schemeLength {
            let byte = bytes[index]
            let expected = scheme.utf8Start[index]
            guard byte == expected || (byte | 0x20 == expected && expected >= 0x61 && expected <= 0x7A) else {
                return nil
            }
        }
        var start = schemeLength
        while start < bytes.count, bytes[start] == 0x20 { start += 1 }
        guard start < bytes.count else { return nil }
        for index in start..<bytes.count where bytes[index] == 0x20 || bytes[index] == 0x2C { return nil }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start...]), as: UTF8.self)
    }
}
