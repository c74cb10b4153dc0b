import Hummingbird
import ServiceHTTP

/// Bodies no larger than the route accepts (JSON or upload, ``BodyKind``): a declared
/// `Content-Length` over the limit is 413 before anything is forwarded, and the body is
/// counted as it streams (``LimitedBody``), so a client that lies about its length or sends
/// none still cannot push more.
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext
    let jsonLimit: Int
    let uploadLimit: Int

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        let limit = try context.requireRoute().body.isUpload ? uploadLimit : jsonLimit
        if let declared = request.headers[.contentLength].flatMap(StrictNumbers.count), declared > limit {
            throw LimitedBody.tooLarge(limit)
        }
        // GET and HEAD bodies are never forwarded (the drain middleware bounds what is read).
        guard request.method != .get, request.method != .head else { return try await next(request, context) }
        var request = request
        request.body = RequestBody(asyncSequence: LimitedBody(base: request.body, limit: limit))
        return try await next(request, context)
    }
}
