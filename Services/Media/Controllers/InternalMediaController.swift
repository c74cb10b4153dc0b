import Contracts
import Hummingbird
import ServiceHTTP

/// `GET /internal/media/{id}`: the owner and state of a media object, and what views show of
/// it (`described`), for services that are about to reference it; `GET /internal/media/{id}/preview` (moderation's certificate): its
/// 300×300 thumbnail or a video's poster, held or not, for the moderation console. For the
/// services that show media: `GET /internal/media/descriptions?limit=&cursor=`, every media
/// object as `media.described` says it (a copy's first fill), and `GET
/// /internal/media/url-keys`, the keys view URLs are signed with.
struct InternalMediaController: Sendable {
    let store: MediaStore
    let blobs: BlobStore
    let viewKeys: MediaURLKeyRing

    static let callers: Set<ServiceName> = [.feed, .streak, .auth, .alerts]
    /// The services that keep a copy of media and sign its view URLs.
    static let viewers: Set<ServiceName> = [.auth, .feed, .streak, .alerts, .moderation]

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.open.get("/internal/media/descriptions", use: descriptions)
        routes.open.get("/internal/media/url-keys", use: urlKeys)
        routes.open.get("/internal/media/:id", use: show)
        routes.open.get("/internal/media/:id/preview", use: preview)
    }

    @Sendable func descriptions(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await PeerIdentity.require(context, oneOf: Self.viewers)
        let page = try PageRequest<String>(request: request, defaultLimit: 500, maximum: 1000)
        return try Response.json(try await store.descriptions(after: page.position, limit: page.limit))
    }

    @Sendable func urlKeys(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await PeerIdentity.require(context, oneOf: Self.viewers)
        guard let keys = viewKeys.keys else {
            throw ServiceError(.serviceUnavailable, "The view keys are not ready yet.", headers: [.retryAfter: "1"])
        }
        var response = try Response.json(keys)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await PeerIdentity.require(context, oneOf: Self.callers)
        let id = try ObjectID.path(context.parameters.require("id"), "Media")
        guard let record = try await store.media(id: id) else { throw ServiceError.notFound("Media") }
        var summary = record.summary
        summary.described = record.describedEvent
        return try Response.json(summary)
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
