import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix
import ServiceKit

/// `POST /v1/media` (single-request photo upload), `GET /v1/media/{id}` and
/// `GET /v1/media/{id}/content`.
struct MediaController: Sendable {
    let store: MediaStore
    let blobs: BlobStore
    let processor: MediaProcessor
    let maxPhotoBytes: Int
    let clock: any WallClock
    let entropy: any Entropy

    func addRoutes(
        to group: RouterGroup<ServiceRequestContext>, idempotency: IdempotencyMiddleware<ServiceRequestContext>
    ) {
        group.get("/v1/media/:id", use: show)
        group.get("/v1/media/:id/content", use: content)
        group.get("/v1/media/:id/thumbnail", use: thumbnail)
        group.get("/v1/media/:id/poster", use: poster)
        group.group().add(middleware: idempotency).post("/v1/media", use: upload)
    }

    /// Streams the body to a temporary file while hashing it, decides the type from the first
    /// bytes, and only then records the media. Anything refused leaves nothing behind.
    @Sendable func upload(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let claimed = ContentSniffer.claimedType(request.headers[.contentType])
        if let claimed, !ContentSniffer.imageTypes.contains(claimed) {
            throw ServiceError(.unsupportedMediaType, "Photos are JPEG, PNG or HEIC; `\(claimed)` is not accepted.")
        }
        let record = try await receive(
            request, id: entropy.uuid().uuidString.lowercased(), owner: user.userID, claimed: claimed,
            accepted: ContentSniffer.imageTypes, limit: maxPhotoBytes)
        context.logger.info("media stored", metadata: ["media_id": "\(record.id)", "bytes": "\(record.byteSize)"])
        var response = try Response.json(record.object, status: .created)
        response.headers[.location] = "/v1/media/\(record.id)"
        return response
    }

    /// Receives one whole file as media `id` of `owner`: streamed to disk and hashed, its type
    /// read from the bytes (one of `accepted`, and the claimed one if any), videos read from
    /// their container, at most `limit` bytes, photos processed. Refused bytes leave nothing
    /// behind.
    func receive(
        _ request: Request, id: String, owner: String, claimed: String?, accepted: Set<String>, limit: Int
    ) async throws -> MediaRecord {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw Self.tooLarge(limit)
        }
        let writer = try blobs.makeWriter()
        let sha256: String
        let detected: String
        var video: VideoInfo?
        do {
            var sniffed: String?
            for try await buffer in request.body {
                try await writer.append(buffer)
                if writer.byteCount > limit { throw Self.tooLarge(limit) }
                if sniffed == nil, writer.prefix.count >= ContentSniffer.prefixLength {
                    sniffed = try Self.check(writer.prefix, claimed: claimed, accepted: accepted)
                }
            }
            guard writer.byteCount > 0 else { throw ServiceError.validation("The upload is empty.") }
            detected = try sniffed ?? Self.check(writer.prefix, claimed: claimed, accepted: accepted)
            sha256 = try await writer.finish()
            if detected.hasPrefix("video/") {
                let file = writer.temporary
                do {
                    video = try await NIOThreadPool.singleton.runIfActive { try ISOBMFF.videoInfo(of: file) }
                } catch let malformed as ISOBMFF.Malformed {
                    throw ServiceError(.unsupportedMediaType, "The video cannot be read: \(malformed.description).")
                }
            }
        } catch {
            writer.discard()
            throw error
        }
        var record = MediaRecord(
            id: id, ownerID: owner, contentType: detected, byteSize: writer.byteCount, sha256: sha256,
            status: .processing, visibility: .private, createdAt: clock.now())
        video.map { record.setFacts($0) }
        do {
            return try await processor.admit(writer.temporary, as: record) { try await store.insert($0) }
        } catch let rejection as MediaRejection {
            throw rejection.error()
        }
    }

    /// The type of the bytes, which must be one we accept and agree with the claim.
    static func check(_ prefix: [UInt8], claimed: String?, accepted: Set<String>) throws -> String {
        guard let detected = ContentSniffer.contentType(of: prefix), accepted.contains(detected) else {
            throw ServiceError(
                .unsupportedMediaType, "The bytes are not one of: \(accepted.sorted().joined(separator: ", ")).")
        }
        if let claimed, claimed != detected {
            throw ServiceError(
                .unsupportedMediaType, "The upload claims `\(claimed)` but the bytes are `\(detected)`.")
        }
        return detected
    }

    static func tooLarge(_ limit: Int) -> ServiceError {
        ServiceError(.payloadTooLarge, "A photo is at most \(limit) bytes.")
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
            request, record: record, viewer: context.requireUser().userID, blobs: blobs,
            cacheControl: "private, max-age=86400, immutable")
    }

    /// The 300×300 JPEG thumbnail (404 until processing made one).
    @Sendable func thumbnail(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let record = try await visibleRecord(context)
        guard let hash = record.thumbnailSHA256, let size = record.thumbnailSize else {
            throw ServiceError.notFound("Thumbnail")
        }
        return try await BlobResponse.make(
            request, sha256: hash, contentType: "image/jpeg", byteSize: size, blobs: blobs,
            cacheControl: "private, max-age=86400, immutable")
    }

    /// A video's first frame as a JPEG (404 without ffmpeg, or until processing made it).
    @Sendable func poster(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let record = try await visibleRecord(context)
        guard let hash = record.posterSHA256, let size = record.posterSize else {
            throw ServiceError.notFound("Poster")
        }
        return try await BlobResponse.make(
            request, sha256: hash, contentType: "image/jpeg", byteSize: size, blobs: blobs,
            cacheControl: "private, max-age=86400, immutable")
    }

    func visibleRecord(_ context: ServiceRequestContext) async throws -> MediaRecord {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Media")
        guard let record = try await store.media(id: id), record.isVisible(to: user.userID) else {
            throw ServiceError.notFound("Media")
        }
        return record
    }
}

/// `GET /internal/media/{id}`: the owner and state of a media object, for services that are
/// about to reference it.
struct InternalMediaController: Sendable {
    let store: MediaStore

    static let callers: Set<ServiceName> = [.feed, .streak]

    func addRoutes(to router: Router<ServiceRequestContext>) {
        router.get("/internal/media/:id") { _, context in
            try await PeerIdentity.require(context, oneOf: Self.callers)
            let id = try ObjectID.path(context.parameters.require("id"), "Media")
            guard let record = try await store.media(id: id) else { throw ServiceError.notFound("Media") }
            return try Response.json(record.summary)
        }
    }
}
