import Contracts
import Hummingbird
import ServiceHTTP

/// `GET /.well-known/jwks.json`: the public keys tokens are verified with. Public through the
/// gateway, and fetched over mutual TLS by the gateway and every service.
struct KeysController: Sendable {
    let keyRing: SigningKeyRing

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.get("/.well-known/jwks.json", use: keys)
    }

    @Sendable func keys(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        var response = try Response.json(try await keyRing.fetchKeys())
        response.headers[.cacheControl] = "public, max-age=300"
        return response
    }
}
