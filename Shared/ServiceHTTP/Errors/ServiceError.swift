import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The one error type Pinhole throws on purpose: a stable code, a message safe to show to the
/// caller, and optionally headers (such as `Retry-After`). ``ErrorMiddleware`` turns it into
/// the JSON envelope; anything else thrown becomes a logged `INTERNAL_ERROR`.
public struct ServiceError: Error, Sendable, CustomStringConvertible {
    /// The stable code; it also decides the HTTP status.
    public let code: ErrorCode
    /// What went wrong, in words the caller can act on.
    public let message: String
    /// Extra response headers.
    public var headers: HTTPFields
    /// What failed underneath (a library's error text), for the operator's log: never sent
    /// to the caller.
    public var cause: String?

    /// Creates an error.
    public init(_ code: ErrorCode, _ message: String, headers: HTTPFields = [:], cause: String? = nil) {
        self.code = code
        self.message = message
        self.headers = headers
        self.cause = cause
    }

    /// The HTTP status the code is sent with.
    public var status: HTTPResponse.Status { .init(code: code.status) }

    /// The code and message, and the cause if there is one: for logs and job retry reasons.
    public var description: String {
        "\(code.rawValue): \(message)" + (cause.map { " (\($0))" } ?? "")
    }

    /// The JSON error envelope every error answer carries.
    public func envelope(requestID: String?) -> ByteBuffer {
        let envelope = ErrorEnvelope(error: ErrorBody(code: code, message: message, requestId: requestID))
        return ByteBuffer(bytes: (try? JSONCoding.sharedEncoder.encode(envelope)) ?? Data())
    }

    // MARK: - Common errors

    /// A field failed validation.
    public static func validation(_ message: String) -> ServiceError {
        ServiceError(.validationFailed, message)
    }

    /// The object does not exist or belongs to someone else: both answer the same.
    public static func notFound(_ what: String) -> ServiceError {
        ServiceError(.notFound, "\(what) not found.")
    }

    /// The caller needs to send a valid bearer token.
    public static let authenticationRequired = ServiceError(
        .authenticationRequired, "This route needs an access token: send `Authorization: Bearer <token>`.")

    /// A guest token tried to change something.
    public static let guestReadOnly = ServiceError(
        .guestReadOnly, "Guest access is read-only: sign in to do this.")

    /// A moderator suspended the caller until `until`: they may read, not change anything.
    public static func accountSuspended(until: Date) -> ServiceError {
        ServiceError(
            .accountSuspended,
            "This account is suspended until \(until.formatted(.iso8601)): it can read but not post or change anything."
        )
    }

    /// The caller lacks the role this needs.
    public static let forbidden = ServiceError(.forbidden, "You are not allowed to do this.")

    /// The bearer token failed verification. Deliberately says nothing about why.
    public static let invalidToken = ServiceError(.invalidToken, "The access token is invalid or expired.")
}
