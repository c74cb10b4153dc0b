import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ServiceKit

/// `POST /v1/media` (single-request photo upload), `GET /v1/media/{id}` and
/// `GET /v1/media/{id}/content`.
struct MediaController: Sendable {
    let store: MediaStore
    let blobs: BlobStore
    let maxPhotoBytes: Int
    let clock: any WallClock
    let entropy: any Entropy

    func addRoutes(
        to group: RouterGroup<ServiceRequestContext>, idempotency: IdempotencyMiddleware<ServiceRequestContext>
    ) {
        group.get("/v1/media/:id", use: show)
        group.get("/v1/media/:id/content", use: content)
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
        if let length = request.headers[.contentLength].flatMap(Int.init), length > maxPhotoBytes {
            throw Self.tooLarge(maxPhotoBytes)
        }
        let writer = try blobs.makeWriter()
        let sha256: String
        let detected: String
        do {
            var sniffed: String?
            for try await buffer in request.body {
                try await writer.append(buffer)
                if writer.byteCount > maxPhotoBytes { throw Self.tooLarge(maxPhotoBytes) }
                if sniffed == nil, writer.prefix.count >= ContentSniffer.prefixLength {
                    sniffed = try Self.check(writer.prefix, claimed: claimed)
                }
            }
            guard writer.byteCount > 0 else { throw ServiceError.validation("The upload is empty.") }
            detected = try sniffed ?? Self.check(writer.prefix, claimed: claimed)
            sha256 = try await writer.finish()
        } catch {
            writer.discard()
            throw error
        }
        try blobs.commit(writer, sha256: sha256)
        let record = MediaRecord(
            id: entropy.uuid().uuidString.lowercased(), ownerID: user.userID, contentType: detected,
            byteSize: writer.byteCount, sha256: sha256, status: .ready, visibility: .private, createdAt: clock.now())
        try await store.insert(record)
        context.logger.info("media stored", metadata: ["media_id": "\(record.id)", "bytes": "\(record.byteSize)"])
        var response = try Response.json(record.object, status: .created)
        response.headers[.location] = "/v1/media/\(record.id)"
        return response
    }

    /// The type of the bytes, which must be one we accept and agree with the claim.
    static func check(_ prefix: [UInt8], claimed: String?) throws -> String {
        guard let detected = ContentSniffer.contentType(of: prefix) else {
            throw ServiceError(.unsupportedMediaType, "The bytes are not a JPEG, PNG or HEIC image.")
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

    /// The bytes, with their type and a strong ETag (the SHA-256).
    @Sendable func content(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let record = try await visibleRecord(context)
        let etag = "\"\(record.sha256)\""
        var headers: HTTPFields = [
            .eTag: etag, .cacheControl: "private, max-age=86400, immutable",
        ]
        if request.headers[.ifNoneMatch] == etag {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = record.contentType
        let data = try await blobs.read(sha256: record.sha256)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    private func visibleRecord(_ context: ServiceRequestContext) async throws -> MediaRecord {
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
