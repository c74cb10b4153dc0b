import Hummingbird
import ServiceHTTP

/// A method the gateway never forwards (`QUERY`, `PROPFIND`, …) on a path the route table
/// lists is 405 with the methods it does forward there, not the router's 404; on any other
/// path it stays a 404 (the gateway's own routes are the kit's ``MethodNotAllowedMiddleware``'s).
struct UnforwardedMethodMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let path = request.uri.path
            guard RouteTable.isCanonical(path), let refusal = RouteTable.methodNotAllowed(request.method, path: path)
            else { throw error }
            throw refusal
        }
    }
}
