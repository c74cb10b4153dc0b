import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// `GET /v1/media/views/{id}/{variant}?exp=&kid=&sig=`: the URLs of media views
/// (``MediaURLSigner``), signed by the service that showed the media to someone allowed to
/// see it. No token: a plain image loader fetches them. The variant is served as strangers see
/// it (no metadata), with a strong `ETag`, `Range`, and caching until the URL expires. An
/// altered or expired URL is 403; a media object still processing, refused or gone is 404,
/// whatever the signature says.
struct MediaViewsController: Sendable {
    let store: MediaStore
    let blobs: BlobStore
    let keys: MediaURLKeyRing
    let clock: any WallClock

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.get("\(MediaURLSigner.path)/:id/:variant", use: show)
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let id = try ObjectID.path(context.parameters.require("id"), "Media")
        guard let variant = MediaVariant(rawValue: try context.parameters.require("variant")) else {
            throw ServiceError.notFound("Media")
        }
        let query = request.uri.queryParameters
        guard let signer = keys.current, let expires = query.get("exp").flatMap({ Int($0) }),
            let kid = query.get("kid"), let signature = query.get("sig"),
            signer.isValid(id, variant, expires: expires, kid: kid, signature: signature)
        else { throw Presigner.refused }
        let now = Int(clock.now().timeIntervalSince1970)
        guard expires > now else { throw Presigner.expired }
        // Held media's URLs are signed only in its owner's views (``Views``).
        guard let record = try await store.media(id: id), record.status == .ready || record.status == .held,
            let blob = record.blob(for: variant)
        else { throw ServiceError.notFound("Media") }
        return try await BlobResponse.make(
            request, sha256: blob.sha256, contentType: blob.contentType, byteSize: blob.byteSize, blobs: blobs,
            cacheControl: "public, max-age=\(expires - now), immutable")
    }
}
