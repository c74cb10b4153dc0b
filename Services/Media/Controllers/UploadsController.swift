import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import ServiceHTTP

/// Resumable uploads over tus 1.0.0 at `/v1/uploads` (see ``Tus``); the bytes are written by
/// ``UploadAppender``.
///
/// - `POST /v1/uploads` declares `Upload-Length` and `Upload-Metadata` (filename, filetype,
///   purpose, optional whole-file sha256). Too large for the purpose is 413 before a byte is
///   written; the owner's quotas (uploads per hour, bytes in flight) are 429.
/// - `PATCH /v1/uploads/{id}` appends at `Upload-Offset` (409 when it is not the durable
///   offset; 409 too while another PATCH writes the same upload), never past the length.
/// - The last byte completes it: the bytes become a media object (`Pinhole-Media-Id`) or the
///   upload is rejected with its reason (460, 415, 422).
/// - `HEAD` tells the durable offset; `DELETE` terminates; an expired upload is 410.
struct UploadsController: Sendable {
    let store: MediaStore
    let uploads: UploadRegistry
    let appender: UploadAppender
    let settings: MediaSettings

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.on("/v1/uploads", method: .options, use: options)
        routes.authenticated.post("/v1/uploads", use: create)
        routes.authenticated.on("/v1/uploads/:id", method: .head, use: head)
        routes.authenticated.get("/v1/uploads/:id", use: show)
        routes.authenticated.patch("/v1/uploads/:id", use: patch)
        routes.authenticated.delete("/v1/uploads/:id", use: terminate)
    }

    @Sendable func options(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        var headers = Tus.headers()
        headers[.tusVersion] = Tus.version
        headers[.tusExtension] = Tus.extensions
        headers[.tusMaxSize] = String(max(settings.maxPhotoBytes, settings.maxVideoBytes))
        headers[.tusChecksumAlgorithm] = Tus.checksumAlgorithms
        return Response(status: .noContent, headers: headers)
    }

    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        try Tus.requireVersion(request)
        guard let length = request.headers[.uploadLength].flatMap(StrictNumbers.count), length >= 0 else {
            throw ServiceError.validation("`Upload-Length` is required: the size of the file in bytes.")
        }
        let metadata = try UploadMetadata(header: request.headers[.uploadMetadata])
        let record = try await uploads.start(
            owner: user.userID, length: length, metadata: metadata, headers: Tus.headers())
        var headers = Tus.headers(expires: record.expiresAt)
        headers[.location] = "/v1/uploads/\(record.id)"
        // creation-with-upload: the body, if any, is the first PATCH.
        if request.headers[.contentType] == Tus.offsetContentType {
            for field in try await append(request, to: record, at: 0) { headers[field.name] = field.value }
        }
        context.logger.info("upload created", metadata: ["upload_id": "\(record.id)", "length": "\(length)"])
        return Response(status: .created, headers: headers)
    }

    @Sendable func head(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let record = try await liveUpload(request, context: context)
        var headers = Tus.headers(expires: record.expiresAt)
        headers[.uploadOffset] = String(record.offset)
        headers[.uploadLength] = String(record.length)
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers)
    }

    /// The upload as JSON, in any state (so a client learns the media id or why it was refused).
    @Sendable func show(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let id = try ObjectID.path(context.parameters.require("id"), "Upload")
        guard let record = try await store.upload(id: id, owner: user.userID) else {
            throw ServiceError.notFound("Upload")
        }
        return try Response.json(record.status)
    }

    @Sendable func patch(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let record = try await liveUpload(request, context: context)
        guard request.headers[.contentType] == Tus.offsetContentType else {
            throw ServiceError(
                .unsupportedMediaType, "PATCH bodies are `\(Tus.offsetContentType)`.", headers: Tus.headers())
        }
        guard let offset = request.headers[.uploadOffset].flatMap(StrictNumbers.count) else {
            throw ServiceError.validation("`Upload-Offset` is required.")
        }
        guard offset == record.offset, record.state.acceptsBytes else {
            var headers = Tus.headers()
            headers[.uploadOffset] = String(record.offset)
            throw ServiceError(
                .conflict,
                "The upload is at offset \(record.offset), not \(offset): ask with HEAD and resume from there.",
                headers: headers)
        }
        return Response(status: .noContent, headers: try await append(request, to: record, at: offset))
    }

    @Sendable func terminate(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        try await appender.terminate(try await liveUpload(request, context: context))
        return Response(status: .noContent, headers: Tus.headers())
    }

    /// Appends the body; answers the new offset, and the media id when it completed the upload.
    private func append(_ request: Request, to record: UploadRecord, at offset: Int) async throws -> HTTPFields {
        let current = try await appender.append(
            request.body, declaredLength: request.headers[.contentLength].flatMap(StrictNumbers.count),
            checksum: request.headers[.uploadChecksum], to: record, at: offset)
        var headers = Tus.headers(expires: current.expiresAt)
        if let media = current.mediaId { headers[.pinholeMediaID] = media }
        headers[.uploadOffset] = String(current.offset)
        return headers
    }

    /// The caller's upload that still takes requests (see ``UploadRegistry/live(_:owner:headers:)``).
    private func liveUpload(_ request: Request, context: ServiceRequestContext) async throws -> UploadRecord {
        let user = try context.requireMember()
        try Tus.requireVersion(request)
        let id = try ObjectID.path(context.parameters.require("id"), "Upload")
        return try await uploads.live(id, owner: user.userID, headers: Tus.headers())
    }
}
