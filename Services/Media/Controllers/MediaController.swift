import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import ServiceHTTP
import ServiceStore

/// `POST /v1/media` (single-request photo upload), `GET /v1/media/{id}` and its bytes:
/// `/content`, `/thumbnail`, `/poster`.
struct MediaController: Sendable {
    let store: MediaStore
    /// Media views with URLs signed by media's own keys.
    let views: Views
    let intake: MediaIntake
    let maxPhotoBytes: Int
    let clock: any WallClock
    let entropy: any Entropy

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.idempotent(routes.authenticated, maxBodyBytes: maxPhotoBytes + 1).post("/v1/media", use: upload)
        routes.authenticated.get("/v1/media", use: batch)
        routes.authenticated.get("/v1/media/:id", use: show)
        routes.authenticated.get("/v1/media/:id/content", use: content)
        routes.authenticated.get("/v1/media/:id/thumbnail", use: thumbnail)
        routes.authenticated.get("/v1/media/:id/poster", use: poster)
    }

    /// A photo in one request, through ``MediaIntake``: anything refused leaves nothing behind.
    @Sendable func upload(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let claimed = ContentSniffer.claimedType(request.headers[.contentType])
        if let claimed, !ContentSniffer.imageTypes.contains(claimed) {
            throw ServiceError(.unsupportedMediaType, "Photos are JPEG, PNG or HEIC; `\(claimed)` is not accepted.")
        }
        let record = try await intake.receive(
            request, id: entropy.id(at: clock.now()), owner: user.userID, claimed: claimed,
            accepted: ContentSniffer.imageTypes, limit: maxPhotoBytes, save: store.insert)
        context.logger.info("media stored", metadata: ["media_id": "\(record.id)", "bytes": "\(record.byteSize)"])
        var response = try Response.json(record.object, status: .created)
        response.headers[.location] = "/v1/media/\(record.id)"
        return response
    }

    /// `GET /v1/media?ids=`: up to 100 media objects as views (size, placeholder, signed URLs),
    /// in the order asked; one the caller may not see, or that does not exist, is simply absent.
    @Sendable func batch(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let ids = try request.queryIDs()
        let records = try await store.media(ids: ids, visibleTo: user.userID)
        let shown = views.media(from: records.map { MediaMirrorRecord($0.describedEvent) }, viewer: user.userID)
        return try Response.json(Page(items: records.compactMap { shown[$0.id] }, nextCursor: nil))
    }

    /// Metadata, for its owner or, once public, anyone signed in; otherwise 404.
    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try Response.json(try await visibleRecord(context).object)
    }

    /// The bytes, with their type, a strong ETag (the SHA-256) and `Range` support: the
    /// owner gets the original, everyone else the copy without metadata.
    @Sendable func content(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let record = try await visibleRecord(context)
        guard record.status != .rejected else { throw ServiceError.notFound("Media") }
        return try await BlobResponse.make(
            request, record: record, viewer: context.requireUser().userID, blobs: intake.blobs,
            cacheControl: "private, max-age=86400, immutable")
    }

    /// The 300×300 JPEG thumbnail (404 until processing made one).
    @Sendable func thumbnail(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let record = try await visibleRecord(context)
        return try await jpeg(request, record.thumbnailSha256, size: record.thumbnailSize, name: "Thumbnail")
    }

    /// A video's first frame as a JPEG (404 without ffmpeg, or until processing made it).
    @Sendable func poster(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let record = try await visibleRecord(context)
        return try await jpeg(request, record.posterSha256, size: record.posterSize, name: "Poster")
    }

    /// A processed JPEG copy, or 404 naming it when there is none (yet).
    private func jpeg(_ request: Request, _ sha256: String?, size: Int?, name: String) async throws -> Response {
        guard let sha256, let size else { throw ServiceError.notFound(name) }
        return try await BlobResponse.make(
            request, sha256: sha256, contentType: "image/jpeg", byteSize: size, blobs: intake.blobs,
            cacheControl: "private, max-age=86400, immutable")
    }

    private func visibleRecord(_ context: ServiceRequestContext) async throws -> MediaRecord {
        let id = try ObjectID.path(context.parameters.require("id"), "Media")
        guard let record = try await store.media(id: id, visibleTo: context.requireUser().userID) else {
            throw ServiceError.notFound("Media")
        }
        return record
    }
}
