import Hummingbird
import ServiceHTTP

/// First in the pipeline: the path must be canonical and listed in ``RouteTable`` (404
/// otherwise, or 405 with `Allow` when the path is listed for other methods; never forwarded);
/// the route found rides in the context for what follows.
struct RouteMatchMiddleware: RouterMiddleware {
    typealias Context = GatewayRequestContext

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws
        -> Response
    {
        let path = request.uri.path
        // A path that is not canonical names nothing the API has (and is never forwarded).
        guard RouteTable.isCanonical(path) else {
            throw ServiceError(.notFound, "No route for \(request.method) \(path): the path is not in canonical form.")
        }
        guard let route = RouteTable.route(path: path, method: request.method) else {
            throw RouteTable.methodNotAllowed(request.method, path: path)
                ?? ServiceError(.notFound, "No route for \(request.method) \(path).")
        }
        var context = context
        context.route = route
        return try await next(request, context)
    }
}
