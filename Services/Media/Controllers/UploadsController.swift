import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix
import ServiceKit

/// Resumable uploads over tus 1.0.0 (tus.io/protocols/resumable-upload) at `/v1/uploads`:
/// the core protocol and the creation, creation-with-upload, termination, checksum (`sha1`,
/// `sha256`) and expiration extensions.
///
/// - `POST /v1/uploads` declares `Upload-Length` and `Upload-Metadata` (filename, filetype,
///   purpose, optional whole-file sha256). Too large for the purpose is 413 before a byte is
///   written; the owner's quotas (uploads per hour, bytes in flight) are 429.
/// - `PATCH /v1/uploads/{id}` appends at `Upload-Offset` (409 when it is not the durable
///   offset; 409 too while another PATCH writes the same upload), never past the length.
/// - The last byte completes it: the whole file's SHA-256 is checked against the declared one
///   (460), the type is read from the bytes and must match the declared one (415), and the
///   bytes become a media object (`Pinhole-Media-Id`).
/// - `HEAD` tells the durable offset; `DELETE` terminates; an expired upload is 410.
struct UploadsController: Sendable {
    let store: MediaStore
    let files: UploadFiles
    let processor: MediaProcessor
    let settings: MediaSettings
    let locks: UploadLocks
    let clock: any WallClock
    let entropy: any Entropy

    static let version = "1.0.0"
    static let extensions = "creation,creation-with-upload,termination,checksum,expiration"
    static let offsetContentType = "application/offset+octet-stream"

    func addRoutes(to group: RouterGroup<ServiceRequestContext>) {
        group.on("/v1/uploads", method: .options, use: options)
        group.post("/v1/uploads", use: create)
        group.on("/v1/uploads/:id", method: .head, use: head)
        group.get("/v1/uploads/:id", use: show)
        group.patch("/v1/uploads/:id", use: patch)
        group.delete("/v1/uploads/:id", use: terminate)
    }

    // MARK: - Routes

    @Sendable func options(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        var headers = Self.tusHeaders()
        headers[HTTPField.Name(TusHeader.version)!] = Self.version
        headers[HTTPField.Name(TusHeader.extension)!] = Self.extensions
        headers[HTTPField.Name(TusHeader.maxSize)!] = String(max(settings.maxPhotoBytes, settings.maxVideoBytes))
        headers[HTTPField.Name(TusHeader.checksumAlgorithm)!] = "sha1,sha256"
        return Response(status: .noContent, headers: headers)
    }

    @Sendable func create(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let user = try context.requireMember()
        try Self.requireTus(request)
        guard let lengthText = request.headers[HTTPField.Name(TusHeader.uploadLength)!],
            let length = Int(lengthText), length >= 0
        else {
            throw ServiceError.validation("`Upload-Length` is required: the size of the file in bytes.")
        }
        let metadata = try UploadMetadata(header: request.headers[HTTPField.Name(TusHeader.uploadMetadata)!])
        let limit = metadata.limit(photo: settings.maxPhotoBytes, video: settings.maxVideoBytes)
        guard length <= limit else {
            throw ServiceError(
                .payloadTooLarge, "A \(metadata.purpose.rawValue) upload of this type is at most \(limit) bytes.",
                headers: Self.tusHeaders())
        }
        let now = clock.now()
        let record = UploadRecord(
            id: entropy.uuid().uuidString.lowercased(), ownerID: user.userID, purpose: metadata.purpose,
            filename: metadata.filename, filetype: metadata.filetype, expectedSHA256: metadata.sha256, length: length,
            offset: 0, state: .pendingUpload, rejectedReason: nil, mediaID: nil, createdAt: now,
            expiresAt: now.addingTimeInterval(settings.uploadTTL))
        try files.create(record.id)
        switch try await store.createUpload(
            record, perHour: settings.uploadsPerHour, inFlightBytes: settings.inFlightBytes)
        {
        case .accepted: break
        case .tooManyUploads:
            files.remove(record.id)
            throw ServiceError(
                .rateLimitExceeded, "At most \(settings.uploadsPerHour) uploads an hour.",
                headers: [.retryAfter: "3600"])
        case .tooManyBytesInFlight:
            files.remove(record.id)
            throw ServiceError(
                .rateLimitExceeded, "Finish or end unfinished uploads first (at most \(settings.inFlightBytes) bytes).",
                headers: [.retryAfter: "60"])
        }
        var headers = Self.tusHeaders(expires: record.expiresAt)
        headers[.location] = "/v1/uploads/\(record.id)"
        // creation-with-upload: the body, if any, is the first PATCH.
        if request.headers[.contentType] == Self.offsetContentType {
            let written = try await write(request, to: record, from: 0)
            for field in written { headers[field.name] = field.value }
        }
        context.logger.info("upload created", metadata: ["upload_id": "\(record.id)", "length": "\(length)"])
        return Response(status: .created, headers: headers)
    }

    @Sendable func head(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let record = try await liveUpload(request, context: context)
        var headers = Self.tusHeaders(expires: record.expiresAt)
        headers[HTTPField.Name(TusHeader.uploadOffset)!] = String(record.offset)
        headers[HTTPField.Name(TusHeader.uploadLength)!] = String(record.length)
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
        guard request.headers[.contentType] == Self.offsetContentType else {
            throw ServiceError(
                .unsupportedMediaType, "PATCH bodies are `\(Self.offsetContentType)`.", headers: Self.tusHeaders())
        }
        guard let offsetText = request.headers[HTTPField.Name(TusHeader.uploadOffset)!], let offset = Int(offsetText)
        else {
            throw ServiceError.validation("`Upload-Offset` is required.")
        }
        guard offset == record.offset, record.state.acceptsBytes else {
            var headers = Self.tusHeaders()
            headers[HTTPField.Name(TusHeader.uploadOffset)!] = String(record.offset)
            throw ServiceError(
                .conflict,
                "The upload is at offset \(record.offset), not \(offset): ask with HEAD and resume from there.",
                headers: headers)
        }
        let written = try await write(request, to: record, from: offset)
        return Response(status: .noContent, headers: written)
    }

    @Sendable func terminate(_ request: Request, context: ServiceRequestContext) async throws -> Response {
        let record = try await liveUpload(request, context: context)
        guard await locks.acquire(record.id) else { throw Self.busy }
        defer { Task { await locks.release(record.id) } }
        guard try await store.move(record.id, to: .terminated) != nil else {
            throw ServiceError(
                .conflict, "The upload is complete; delete the media instead.", headers: Self.tusHeaders())
        }
        files.remove(record.id)
        return Response(status: .noContent, headers: Self.tusHeaders())
    }

    // MARK: - Writing

    /// Appends the request body and, when it was the last byte, completes the upload. Returns
    /// the headers of the answer.
    private func write(_ request: Request, to record: UploadRecord, from offset: Int) async throws -> HTTPFields {
        if let declared = request.headers[.contentLength].flatMap(Int.init), offset + declared > record.length {
            throw Self.tooLong(record)
        }
        var checksum: UploadFiles.Checksum?
        if let header = request.headers[HTTPField.Name(TusHeader.uploadChecksum)!] {
            guard let parsed = UploadFiles.Checksum(header: header) else {
                throw ServiceError.validation("`Upload-Checksum` must be `sha1` or `sha256` and a base64 digest.")
            }
            checksum = parsed
        }
        guard await locks.acquire(record.id) else { throw Self.busy }
        defer { Task { await locks.release(record.id) } }

        let newOffset: Int
        do {
            let store = self.store
            switch try await files.append(
                record.id, at: offset, length: record.length, body: request.body, checksum: checksum,
                checkpoint: { _ = try await store.recordOffset(record.id, offset: $0) })
            {
            case .appended(let end): newOffset = end
            case .tooLong: throw Self.tooLong(record)
            case .checksumMismatch:
                throw ServiceError(
                    .checksumMismatch, "The bytes do not match `Upload-Checksum`; nothing was appended.",
                    headers: Self.tusHeaders())
            }
        } catch let interrupted as UploadInterrupted {
            _ = try? await store.recordOffset(record.id, offset: interrupted.offset)
            throw ServiceError(.malformedRequest, "The body ended early; resume from `Upload-Offset`.")
        }
        guard var current = try await store.recordOffset(record.id, offset: newOffset) else {
            throw ServiceError.notFound("Upload")
        }
        if offset < ContentSniffer.prefixLength, newOffset >= ContentSniffer.prefixLength || newOffset == record.length
        {
            try await checkType(of: current)
        }
        var headers = Self.tusHeaders(expires: current.expiresAt)
        if newOffset == current.length {
            current = try await complete(current)
            if let media = current.mediaID { headers[HTTPField.Name(TusHeader.mediaID)!] = media }
        }
        headers[HTTPField.Name(TusHeader.uploadOffset)!] = String(current.offset)
        return headers
    }

    /// Reads the type from the first bytes; a type not accepted, or not the declared one,
    /// rejects the upload (415) and its bytes go. Returns the type.
    @discardableResult
    private func checkType(of record: UploadRecord) async throws -> String {
        let prefix = try await files.prefix(record.id, count: ContentSniffer.prefixLength)
        let detected = ContentSniffer.contentType(of: prefix)
        let declared = ContentSniffer.claimedType(record.filetype)
        let reason: String? =
            if let detected, ContentSniffer.uploadTypes.contains(detected) {
                declared.map { $0 == detected ? nil : "declared `\($0)` but the bytes are `\(detected)`" } ?? nil
            } else {
                "the bytes are not JPEG, PNG, HEIC, WebP, MP4 or QuickTime"
            }
        guard let reason else { return detected ?? "application/octet-stream" }
        try await reject(record, reason: reason)
        throw ServiceError(.unsupportedMediaType, "Upload refused: \(reason).", headers: Self.tusHeaders())
    }

    /// The last byte arrived: check the whole file, then make it a media object.
    private func complete(_ record: UploadRecord) async throws -> UploadRecord {
        guard let processing = try await store.move(record.id, to: .processing) else { return record }
        let type = try await checkType(of: processing)
        let sha256 = try await files.sha256(record.id, length: record.length)
        if let expected = record.expectedSHA256, expected != sha256 {
            try await reject(processing, reason: "the file's SHA-256 is not the one declared")
            throw ServiceError(
                .checksumMismatch, "The file's SHA-256 is \(sha256), not the declared \(expected).",
                headers: Self.tusHeaders())
        }
        var media = MediaRecord(
            id: entropy.uuid().uuidString.lowercased(), ownerID: record.ownerID, contentType: type,
            byteSize: record.length, sha256: sha256, status: .processing, visibility: .private, createdAt: clock.now())
        if type.hasPrefix("video/") {
            media.setFacts(try await inspectVideo(processing))
        } else if record.purpose == .challengeClip {
            try await reject(processing, reason: "a challenge clip must be a video")
            throw ServiceError(
                .unsupportedMediaType, "A challenge clip must be an MP4 or QuickTime video.", headers: Self.tusHeaders()
            )
        }
        do {
            try await processor.admit(files.url(record.id), as: media) { media in
                guard try await store.finish(record.id, media: media) != nil else {
                    throw ServiceError(.conflict, "The upload changed while it was completed.")
                }
            }
        } catch let rejection as MediaRejection {
            try await reject(processing, reason: rejection.reason)
            throw rejection.error(headers: Self.tusHeaders())
        }
        return try await store.upload(id: record.id, owner: record.ownerID) ?? processing
    }

    /// Reads the container's facts; a file that is not a whole MP4/QuickTime, or a challenge
    /// clip outside the configured duration, rejects the upload.
    private func inspectVideo(_ record: UploadRecord) async throws -> VideoInfo {
        let file = files.url(record.id)
        let video: VideoInfo
        do {
            video = try await NIOThreadPool.singleton.runIfActive { try ISOBMFF.videoInfo(of: file) }
        } catch let malformed as ISOBMFF.Malformed {
            try await reject(record, reason: "unreadable video: \(malformed.description)")
            throw ServiceError(
                .unsupportedMediaType, "The video cannot be read: \(malformed.description).", headers: Self.tusHeaders()
            )
        }
        if record.purpose == .challengeClip, !settings.clipDuration.contains(video.duration) {
            let range = "\(settings.clipDuration.lowerBound)–\(settings.clipDuration.upperBound) s"
            let reason = "a challenge clip lasts \(range); this one lasts \(String(format: "%.2f", video.duration)) s"
            try await reject(record, reason: reason)
            throw ServiceError(.validationFailed, "Upload refused: \(reason).", headers: Self.tusHeaders())
        }
        return video
    }

    private func reject(_ record: UploadRecord, reason: String) async throws {
        if record.state != .processing { try await store.move(record.id, to: .processing) }
        try await store.move(record.id, to: .rejected) { $0.rejectedReason = reason }
        files.remove(record.id)
    }

    // MARK: - Helpers

    /// The caller's upload that still takes requests: someone else's or a terminated one is
    /// 404, an expired one 410 (and its bytes go now if the sweeper has not been by).
    private func liveUpload(_ request: Request, context: ServiceRequestContext) async throws -> UploadRecord {
        let user = try context.requireMember()
        try Self.requireTus(request)
        let id = try ObjectID.path(context.parameters.require("id"), "Upload")
        guard var record = try await store.upload(id: id, owner: user.userID), record.state != .terminated else {
            throw ServiceError(.notFound, "Upload not found.", headers: Self.tusHeaders())
        }
        if record.state.acceptsBytes, record.expiresAt <= clock.now() {
            record = try await store.move(id, to: .expired) ?? record
            files.remove(id)
        }
        guard record.state != .expired else {
            throw ServiceError(.uploadExpired, "The upload expired; start a new one.", headers: Self.tusHeaders())
        }
        return record
    }

    static func requireTus(_ request: Request) throws {
        guard request.headers[HTTPField.Name(TusHeader.resumable)!] == version else {
            var headers = tusHeaders()
            headers[HTTPField.Name(TusHeader.version)!] = version
            throw ServiceError(.tusVersionUnsupported, "Send `Tus-Resumable: 1.0.0`.", headers: headers)
        }
    }

    static func tusHeaders(expires: Date? = nil) -> HTTPFields {
        var headers: HTTPFields = [HTTPField.Name(TusHeader.resumable)!: version]
        if let expires { headers[HTTPField.Name(TusHeader.uploadExpires)!] = httpDate(expires) }
        return headers
    }

    /// RFC 9110 IMF-fixdate, as `Upload-Expires` wants.
    static func httpDate(_ date: Date) -> String {
        date.formatted(
            Date.VerbatimFormatStyle(
                format:
                    "\(weekday: .abbreviated), \(day: .twoDigits) \(month: .abbreviated) \(year: .defaultDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits) GMT",
                locale: Locale(identifier: "en_US_POSIX"), timeZone: TimeZone(identifier: "GMT")!,
                calendar: Calendar(identifier: .gregorian)))
    }

    static func tooLong(_ record: UploadRecord) -> ServiceError {
        ServiceError(
            .payloadTooLarge, "The upload is \(record.length) bytes; this would write past its end.",
            headers: tusHeaders())
    }

    static let busy = ServiceError(
        .conflict, "Another request is writing this upload; wait for it, then resume.", headers: tusHeaders())
}

/// One writer per upload at a time.
actor UploadLocks {
    private var active: Set<String> = []

    func acquire(_ id: String) -> Bool { active.insert(id).inserted }
    func release(_ id: String) { active.remove(id) }
}
