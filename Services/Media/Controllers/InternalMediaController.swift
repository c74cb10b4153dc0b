import Contracts
import Hummingbird
import ServiceHTTP

/// `GET /internal/media/{id}`: the owner and state of a media object, for services that are
/// about to reference it; `GET /internal/media/{id}/preview` (moderation's certificate): its
/// 300×300 thumbnail or a video's poster, held or not, for the moderation console.
struct InternalMediaController: Sendable {
    let store: MediaStore
    let blobs: BlobStore

    static let callers: Set<ServiceName> = [.feed, .streak, .auth, .alerts]

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.get("/internal/media/:id", use: show)
        routes.open.get("/internal/media/:id/preview", use: preview)
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await PeerIdentity.require(context, oneOf: Self.callers)
        let id = try ObjectID.path(context.parameters.require("id"), "Media")
        guard let record = try await store.media(id: id) else { throw ServiceError.notFound("Media") }
        return try Response.json(record.summary)
    }

    @Sendable func preview(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await PeerIdentity.require(context, oneOf: [.moderation])
        let id = try ObjectID.path(context.parameters.require("id"), "Media")
        guard let record = try await store.media(id: id), record.status != .rejected,
            let (sha256, size) = Self.jpeg(record.thumbnailSha256, record.thumbnailSize)
                ?? Self.jpeg(record.posterSha256, record.posterSize)
        else { throw ServiceError.notFound("Preview") }
        return try await BlobResponse.make(
            request, sha256: sha256, contentType: "image/jpeg", byteSize: size, blobs: blobs, cacheControl: "no-store")
    }

    private static func jpeg(_ sha256: String?, _ size: Int?) -> (String, Int)? {
        guard let sha256, let size else { return nil }
        return (sha256, size)
    }
}
