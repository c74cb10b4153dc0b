import HTTPTypes
import Hummingbird
import ServiceHTTP

/// Request heads no larger than `limit` bytes, counted as HTTP/2 counts them (name + value +
/// 32 per field, pseudo-headers included) whichever protocol the client spoke: larger is 431
/// `HEADERS_TOO_LARGE` before anything is forwarded. Runs for every route, the gateway's own
/// included; the services accept 16 KiB, and the limit leaves room for what the gateway adds.
struct HeaderLimitMiddleware<Context: RequestContext>: RouterMiddleware {
    let limit: Int

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    )
        async throws -> Response
    {
        guard Self.size(of: request.head) <= limit else {
            throw ServiceError(
                .headersTooLarge, "The request's headers are larger than this server accepts (\(limit) bytes).")
        }
        return try await next(request, context)
    }

    /// A head's size as HTTP/2 counts it.
    static func size(of head: HTTPRequest) -> Int {
        var size = head.method.rawValue.utf8.count + (head.path?.utf8.count ?? 0) + 4 * 32
        size += (head.authority?.utf8.count ?? 0) + (head.scheme?.utf8.count ?? 0)
        for field in head.headerFields {
            size += field.name.rawName.utf8.count + field.value.utf8.count + 32
        }
        return size
    }
}
