import Hummingbird
import ServiceKit

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
        guard RouteTable.isCanonical(path) else {
            throw ServiceError(.malformedRequest, "The path is not in canonical form.")
        }
        guard let route = RouteTable.route(path: path, method: request.method) else {
            let allowed = RouteTable.methods(at: path)
            guard !allowed.isEmpty else { throw ServiceError(.notFound, "No route for \(request.method) \(path).") }
            let names = allowed.map(\.rawValue).sorted().joined(separator: ", ")
            throw ServiceError(
                .methodNotAllowed, "\(request.method) is not allowed on \(path); use \(names).",
                headers: [.allow: names])
        }
        var context = context
        context.route = route
        return try await next(request, context)
    }
}
