import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import ServiceHTTP

/// Resumable uploads by the IETF draft at `/v1/resumable-uploads` (see ``ResumableUploadDraft``),
/// as URLSession sends a file from iOS 17 on: the same records, limits, quotas, type checks and
/// writer (``UploadAppender``) as tus, so an upload started one way reads the same at
/// `GET /v1/uploads/{id}`.
///
/// - `POST /v1/resumable-uploads?purpose=post` carries the file (its `Content-Type` is the
///   declared type; its size is `Upload-Length`, or `Content-Length` when the request completes
///   the upload). Once the upload exists (limit and quotas checked) the answer
///   `104 Upload Resumption Supported` names it in `Location`, before any byte is read; the
///   bytes are then kept as they arrive, so a broken connection loses only what was in flight.
/// - `HEAD /v1/resumable-uploads/{id}` answers the durable offset; `PATCH` appends at
///   `Upload-Offset` (409 with the right one otherwise); `DELETE` cancels.
/// - The request that brings the last byte is answered with the upload as JSON, its media id in
///   `Pinhole-Media-Id` too; one that leaves it unfinished with 201 (creation) or 204 (append).
struct ResumableUploadsController: Sendable {
    let uploads: UploadRegistry
    let appender: UploadAppender

    func addRoutes(to routes: ServiceRoutes<ServiceRequestContext>) {
        routes.authenticated.post("/v1/resumable-uploads", use: create)
        routes.authenticated.on("/v1/resumable-uploads/:id", method: .head, use: offset)
        routes.authenticated.patch("/v1/resumable-uploads/:id", use: append)
        routes.authenticated.delete("/v1/resumable-uploads/:id", use: cancel)
    }

    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        let draft = try ResumableUploadDraft(request)
        guard let completes = try draft.completes(request) else {
            throw ServiceError.validation(
                "Say whether this request carries the whole file (`Upload-Complete`, or `Upload-Incomplete` in version 3)."
            )
        }
        if let offset = try draft.integer(.uploadOffset, in: request), offset != 0 {
            throw ServiceError.validation("An upload starts at offset 0.")
        }
        let length = try declaredLength(request, draft: draft, completes: completes, offset: 0)
        guard let length else {
            throw ServiceError.validation(
                "The upload's size is needed: send the whole file (with `Content-Length`) or `Upload-Length`.")
        }
        let purpose = try request.uri.queryParameters["purpose"].map { text in
            guard let purpose = UploadPurpose(rawValue: String(text)) else {
                throw ServiceError.validation(
                    "`purpose` must be one of \(UploadPurpose.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            return purpose
        }
        let filetype = request.headers[.contentType].map {
            String($0.prefix { $0 != ";" }).trimmingCharacters(in: .whitespaces)
        }
        let record = try await uploads.start(
            owner: user.userID, length: length, metadata: UploadMetadata(filetype: filetype, purpose: purpose ?? .post),
            headers: draft.headers())
        let location = "/v1/resumable-uploads/\(record.id)"
        // The client may now resume from here whatever happens to this request.
        try await InformationalResponses.current?.send(
            HTTPResponse(
                status: ResumableUploadDraft.resumptionSupported, headerFields: draft.headers(location: location)))
        context.logger.info("resumable upload created", metadata: ["upload_id": "\(record.id)", "length": "\(length)"])
        let current = try await appender.append(
            request.body, declaredLength: request.headers[.contentLength].flatMap(StrictNumbers.count), checksum: nil,
            to: record,
            at: 0)
        return try answer(current, draft: draft, location: location)
    }

    @Sendable func offset(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (record, draft) = try await liveUpload(request, context: context)
        var headers = draft.headers(offset: record.offset, complete: record.offset == record.length)
        if draft.version >= 6 { headers[.uploadLength] = String(record.length) }
        headers[.cacheControl] = "no-store"
        return Response(status: .noContent, headers: headers)
    }

    @Sendable func append(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (record, draft) = try await liveUpload(request, context: context)
        guard let offset = try draft.integer(.uploadOffset, in: request) else {
            throw ServiceError(
                .validationFailed, "`Upload-Offset` is required: ask it with HEAD.", headers: draft.headers())
        }
        guard offset == record.offset, record.state.acceptsBytes else {
            throw ServiceError(
                .conflict,
                "The upload is at offset \(record.offset), not \(offset): ask with HEAD and resume from there.",
                headers: draft.headers(offset: record.offset, complete: record.offset == record.length))
        }
        let completes = try draft.completes(request) ?? true
        if let length = try declaredLength(request, draft: draft, completes: completes, offset: offset),
            length != record.length
        {
            throw ServiceError(
                .validationFailed, "The upload is \(record.length) bytes, not \(length).",
                headers: draft.headers(offset: record.offset, complete: false))
        }
        let current = try await appender.append(
            request.body, declaredLength: request.headers[.contentLength].flatMap(StrictNumbers.count), checksum: nil,
            to: record,
            at: offset)
        return try answer(current, draft: draft, location: nil)
    }

    @Sendable func cancel(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let (record, draft) = try await liveUpload(request, context: context)
        try await appender.terminate(record)
        return Response(status: .noContent, headers: draft.headers())
    }

    /// The upload's whole size as the request states it: `Upload-Length`, or the offset plus
    /// `Content-Length` when the request completes the upload; both must agree (400).
    private func declaredLength(
        _ request: Request, draft: ResumableUploadDraft, completes: Bool, offset: Int
    ) throws -> Int? {
        let stated = try draft.integer(.uploadLength, in: request)
        let carried = completes ? request.headers[.contentLength].flatMap(StrictNumbers.count).map { offset + $0 } : nil
        if let stated, let carried, stated != carried {
            throw ServiceError(
                .validationFailed,
                "`Upload-Length` (\(stated)) and the bytes that complete the upload (\(carried)) disagree.",
                headers: draft.headers())
        }
        return stated ?? carried
    }

    /// The answer after bytes were kept: the upload as JSON once complete, else where it stands.
    private func answer(_ record: UploadRecord, draft: ResumableUploadDraft, location: String?) throws -> Response {
        let complete = record.offset == record.length
        var headers = draft.headers(offset: record.offset, complete: complete, location: location)
        guard complete else { return Response(status: location == nil ? .noContent : .created, headers: headers) }
        if let media = record.mediaId { headers[.pinholeMediaID] = media }
        var response = try Response.json(record.status, status: location == nil ? .ok : .created)
        for field in headers { response.headers[field.name] = field.value }
        return response
    }

    private func liveUpload(
        _ request: Request, context: ServiceRequestContext
    ) async throws -> (UploadRecord, ResumableUploadDraft) {
        let user = try context.requireMember()
        let draft = try ResumableUploadDraft(request)
        let id = try ObjectID.path(context.parameters.require("id"), "Upload")
        return (try await uploads.live(id, owner: user.userID, headers: draft.headers()), draft)
    }
}
