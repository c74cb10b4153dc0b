import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTP2

/// Turns every thrown error into the JSON envelope
/// `{"error":{"code","message","requestId"}}`.
///
/// ``ServiceError`` keeps its code and message. Hummingbird's own errors (no route, wrong
/// method, body too large) get the matching code; a library error that knows its client-facing
/// meaning says so through ``ServiceErrorConvertible`` (the store layer makes a unique-constraint
/// failure a 409).
/// Anything else is logged with its details and answered as `INTERNAL_ERROR` without them:
/// library error text never reaches a client.
public struct ErrorMiddleware<Context: ServiceRequestContextProtocol>: RouterMiddleware {
    public init() {}

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let failure = Self.serviceError(for: error, request: request, logger: context.logger)
            return Self.response(for: failure, requestID: context.requestID)
        }
    }

    /// The envelope response for an error.
    public static func response(for error: ServiceError, requestID: String?) -> Response {
        var headers = error.headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(
            status: error.status, headers: headers, body: .init(byteBuffer: error.envelope(requestID: requestID)))
    }

    static func serviceError(for error: any Error, request: Request, logger: Logger) -> ServiceError {
        if let mapped = (error as? any ServiceErrorConvertible)?.serviceError { return mapped }
        switch error {
        case let error as ServiceError:
            if let cause = error.cause {
                // The caller gets the code and message; the operator learns what failed.
                logger.warning("request failed", metadata: ["error": "\(error.code.rawValue)", "cause": "\(cause)"])
            }
            return error
        case let error as HTTPError:
            return map(status: error.status, request: request, logger: logger, underlying: error)
        case let error as any HTTPResponseError:
            return map(status: error.status, request: request, logger: logger, underlying: error)
        case is DecodingError:
            return ServiceError(.malformedRequest, "The request is not in the expected format.")
        case is CancellationError:
            // The server is stopping (or the request's task was cancelled): nothing went wrong
            // in the handler, and whatever it wrote is in a transaction that did not commit.
            logger.info("request cancelled", metadata: ["error": "\(error)"])
            return ServiceError(.serviceUnavailable, "The service is stopping; try again.", headers: [.retryAfter: "1"])
        case is NIOHTTP2Errors.StreamClosed, is HTTPParserError:
            // The caller reset its stream or broke the body's framing: its failure, not ours.
            logger.info("request body ended early", metadata: ["error": "\(error)"])
            return ServiceError(.malformedRequest, "The request body ended before it was complete.")
        default:
            logger.error("unhandled error", metadata: ["error": "\(String(reflecting: error))"])
            return ServiceError(.internalError, "Something went wrong on our side; quote the request id.")
        }
    }

    private static func map(
        status: HTTPResponse.Status, request: Request, logger: Logger, underlying: any Error
    ) -> ServiceError {
        switch status.code {
        case 404: return ServiceError(.notFound, "No route for \(request.method) \(request.uri.path).")
        case 405: return ServiceError(.methodNotAllowed, "\(request.method) is not allowed on \(request.uri.path).")
        case 413: return ServiceError(.payloadTooLarge, "The body is too large for this route.")
        case 415: return ServiceError(.unsupportedMediaType, "This content type is not accepted here.")
        case 401: return .authenticationRequired
        case 403: return ServiceError(.forbidden, "Not allowed.")
        case 400..<500: return ServiceError(.malformedRequest, "The request is not in the expected format.")
        default:
            logger.error("unhandled error", metadata: ["error": "\(String(reflecting: underlying))"])
            return ServiceError(.internalError, "Something went wrong on our side; quote the request id.")
        }
    }
}

/// An error from below the HTTP layer that may mean something a client can act on: the store
/// layer conforms SQLite's constraint failures (a 409), so the HTTP layer needs no database.
public protocol ServiceErrorConvertible: Error {
    /// The client-facing error, or nil when this one is an internal failure.
    var serviceError: ServiceError? { get }
}
