import Contracts
import Foundation
import Hummingbird
import ServiceHTTP

/// Presigned URLs: time-limited, HMAC-signed, for one PUT of one object or
/// for downloading one object, usable without a token.
///
/// - `POST /v1/media/presign` (signed in) → a PUT URL bound to a new media id, its owner, a
///   content type and the purpose's size limit, for `media.presign.uploadSeconds`.
/// - `GET /v1/media/{id}/url` (who may see the media) → a GET URL for
///   `media.presign.downloadSeconds`, which serves the copy without metadata.
/// - `PUT` / `GET /v1/media/presigned/{id}?…&sig=` → 403 when tampered with or expired. The
///   object key is always a server-made id: nothing in a client's path names a file.
struct PresignController: Sendable {
    /// The store, intake, presigner, settings, clock and randomness both presigning controllers use.
    let shared: PresignedObjects

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.post("/v1/media/presign", use: presignUpload)
        routes.authenticated.get("/v1/media/:id/url", use: presignDownload)
        routes.open.put("/v1/media/presigned/:id", use: put)
        routes.open.get("/v1/media/presigned/:id", use: get)
    }

    @Sendable func presignUpload(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let body = try await request.decodeJSON(as: PresignUploadRequest.self, context: context)
        guard let type = ContentSniffer.claimedType(body.contentType), ContentSniffer.uploadTypes.contains(type) else {
            throw ServiceError(
                .unsupportedMediaType,
                "`contentType` must be one of \(ContentSniffer.uploadTypes.sorted().joined(separator: ", ")).")
        }
        var metadata = try UploadMetadata(header: nil)
        metadata.purpose = body.purpose ?? .post
        metadata.filetype = type
        let maxBytes = metadata.limit(photo: shared.settings.maxPhotoBytes, video: shared.settings.maxVideoBytes)
        let now = shared.clock.now()
        let expires = Int(now.timeIntervalSince1970) + shared.settings.presignUploadSeconds
        let id = shared.entropy.id(at: now)
        return try Response.json(
            PresignedURL(
                method: "PUT",
                url: shared.presigner.uploadURL(
                    id: id, owner: user.userID, type: type, maxBytes: maxBytes, expires: expires),
                mediaId: id, headers: ["Content-Type": type], maxBytes: maxBytes,
                expiresAt: Date(timeIntervalSince1970: TimeInterval(expires))),
            status: .created)
    }

    @Sendable func presignDownload(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let id = try ObjectID.path(context.parameters.require("id"), "Media")
        let viewer = try context.requireUser().userID
        guard let record = try await shared.store.media(id: id, visibleTo: viewer) else {
            throw ServiceError.notFound("Media")
        }
        // A reader of someone else's private object gets a shorter link: their access can end.
        let lifetime =
            record.ownerId != viewer && record.visibility == .private
            ? min(shared.settings.presignDownloadSeconds, shared.settings.presignReaderSeconds)
            : shared.settings.presignDownloadSeconds
        let expires = Int(shared.clock.now().timeIntervalSince1970) + lifetime
        return try Response.json(
            PresignedURL(
                method: "GET", url: shared.presigner.downloadURL(id: record.id, expires: expires), mediaId: record.id,
                headers: [:], maxBytes: nil, expiresAt: Date(timeIntervalSince1970: TimeInterval(expires))))
    }

    @Sendable func put(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let id = try ObjectID.path(context.parameters.require("id"), "Media")
        guard let owner = query.get("owner").flatMap(ObjectID.canonical), let type = query.get("type"),
            let maxBytes = query.get("max").flatMap({ Int($0) })
        else { throw Presigner.refused }
        _ = try shared.presigner.check(expires: query.get("exp"), signature: query.get("sig"), now: shared.clock.now())
        {
            Presigner.uploadParts(id: id, owner: owner, type: type, maxBytes: maxBytes, expires: $0)
        }
        guard ContentSniffer.claimedType(request.headers[.contentType]) == type else {
            throw ServiceError(.forbidden, "This URL is for `\(type)` uploads; send that `Content-Type`.")
        }
        guard try await shared.store.media(id: id) == nil else {
            throw ServiceError(.conflict, "This URL was already used.")
        }
        let record = try await shared.intake.receive(
            request, id: id, owner: owner, claimed: type, accepted: ContentSniffer.uploadTypes, limit: maxBytes,
            save: shared.store.insert)
        return try Response.json(record.object, status: .created)
    }

    @Sendable func get(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        let id = try ObjectID.path(context.parameters.require("id"), "Media")
        let expires = try shared.presigner.check(
            expires: query.get("exp"), signature: query.get("sig"), now: shared.clock.now()
        ) {
            Presigner.downloadParts(id: id, expires: $0)
        }
        guard let record = try await shared.store.media(id: id) else { throw ServiceError.notFound("Media") }
        let maxAge = max(0, expires - Int(shared.clock.now().timeIntervalSince1970))
        guard record.status == .ready else { throw ServiceError.notFound("Media") }
        // A URL can be passed on: it serves what strangers see (no metadata).
        return try await BlobResponse.make(
            request, record: record, viewer: nil, blobs: shared.intake.blobs,
            cacheControl: "private, max-age=\(maxAge), immutable")
    }
}
