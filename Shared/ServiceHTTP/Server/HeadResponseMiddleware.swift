import Hummingbird

/// Answers `HEAD` without a body, keeping the headers (`Content-Length` included).
///
/// A `HEAD` answer must not carry a body. Written anyway (an error envelope for a `HEAD` to a
/// route that only has `GET`, say), NIO's HTTP/2 ends the whole connection, and with it every
/// other request multiplexed on it: one anonymous `HEAD` in a loop made a quarter of other
/// users' requests through the gateway fail. Outermost in every router, so that nothing after
/// it, errors included, can put a body back. Routes that answer `HEAD` themselves (tus) still
/// get it as `HEAD`.
public struct HeadResponseMiddleware<Context: RequestContext>: RouterMiddleware {
    public init() {}

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.method == .head else { return try await next(request, context) }
        var response = try await next(request, context)
        let length = response.headers[.contentLength]
        response.body = ResponseBody()
        if let length { response.headers[.contentLength] = length }
        return response
    }
}
