import Foundation
import Hummingbird
import NIOCore
import ServiceHTTP

/// `GET /.well-known/apple-app-site-association` and `GET /.well-known/assetlinks.json`: the
/// documents that let the apps open their notifications' links (``AppLinks``), written once
/// at start; 404 for a platform not configured.
struct AppLinksController {
    let apple: ByteBuffer?
    let android: ByteBuffer?

    init(_ links: AppLinks) throws {
        apple = try links.appleDocument().map { ByteBuffer(bytes: $0) }
        android = try links.androidDocument().map { ByteBuffer(bytes: $0) }
    }

    func addRoutes(to routes: ServiceRoutes<GatewayRequestContext>) {
        routes.open.get("/.well-known/apple-app-site-association") { _, _ in try Self.answer(apple) }
        routes.open.get("/.well-known/assetlinks.json") { _, _ in try Self.answer(android) }
    }

    static func answer(_ document: ByteBuffer?) throws -> Response {
        guard let document else { throw ServiceError.notFound("App link document") }
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "public, max-age=3600"],
            body: .init(byteBuffer: document))
    }
}
