import Foundation
import Hummingbird
import NIOCore
import ServiceHTTP

/// `GET /openapi.yaml`: the public API description, served as kept in the repository.
struct OpenAPIController {
    let document: ByteBuffer

    init() throws {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml") else {
            throw ConfigurationError("the gateway's openapi.yaml resource is missing from the build")
        }
        self.document = ByteBuffer(bytes: try Data(contentsOf: url))
    }

    func addRoutes(to routes: ServiceRoutes<GatewayRequestContext>) {
        routes.open.get("/openapi.yaml", use: serve)
    }

    @Sendable func serve(_ request: Request, context: GatewayRequestContext) async throws -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/yaml; charset=utf-8"], body: .init(byteBuffer: document))
    }
}
