import Foundation
import HTTPTypes
import OpenAPIRuntime

/// A tus 1.0.0 upload the client can pick up again after a broken connection, or in a later
/// launch of the app: keep it (it is `Codable`) where ``PinholeClient/send(_:to:chunkSize:progress:)``
/// reports progress, and pass it back to resume.
public struct ResumableUpload: Sendable, Hashable, Codable {
    /// The upload's id (`/v1/uploads/{id}`).
    public let id: String
    /// The whole file's size.
    public let length: Int
    /// The bytes the server has kept durably, as last heard.
    public internal(set) var offset: Int

    public var isComplete: Bool { offset == length }
}

extension PinholeClient {
    public typealias UploadPurpose = Components.Schemas.UploadStatus.PurposePayload

    /// Uploads a photo or video by tus and answers its media id: ``startUpload(length:contentType:purpose:filename:sha256:)``
    /// then ``send(_:to:chunkSize:progress:)``.
    public func upload(
        _ data: Data, contentType: String, purpose: UploadPurpose = .post, filename: String? = nil,
        sha256: String? = nil, chunkSize: Int = 4 << 20
    ) async throws -> String {
        let upload = try await startUpload(
            length: data.count, contentType: contentType, purpose: purpose, filename: filename, sha256: sha256)
        return try await send(data, to: upload, chunkSize: chunkSize)
    }

    /// Starts a tus upload of `length` bytes. `sha256` (hex), when given, is checked by the server
    /// once the last byte is in.
    public func startUpload(
        length: Int, contentType: String, purpose: UploadPurpose = .post, filename: String? = nil,
        sha256: String? = nil
    ) async throws -> ResumableUpload {
        var metadata = [("filetype", contentType), ("purpose", purpose.rawValue)]
        if let filename { metadata.append(("filename", filename)) }
        if let sha256 { metadata.append(("sha256", sha256)) }
        let header = metadata.map { "\($0.0) \(Data($0.1.utf8).base64EncodedString())" }.joined(separator: ",")
        let answer = try await api.createUpload(
            headers: .init(tusResumable: ._1_0_0, uploadLength: length, uploadMetadata: header))
        guard case .created(let created) = answer, let id = created.headers.location.split(separator: "/").last else {
            throw PinholeClientError(operation: "createUpload", answer: answer)
        }
        return ResumableUpload(id: String(id), length: length, offset: created.headers.uploadOffset ?? 0)
    }

    /// The server's durable offset of `upload` (tus HEAD).
    public func resumePoint(of upload: ResumableUpload) async throws -> ResumableUpload {
        let answer = try await api.uploadOffset(path: .init(id: upload.id), headers: .init(tusResumable: ._1_0_0))
        guard case .ok(let ok) = answer else { throw PinholeClientError(operation: "uploadOffset", answer: answer) }
        var upload = upload
        upload.offset = ok.headers.uploadOffset
        return upload
    }

    /// Sends the bytes of `data` the server does not have yet, `chunkSize` at a time, and answers
    /// the media id once the last byte is in. After a broken connection, a 409 (another offset)
    /// or a 429/503, it asks the server's offset (HEAD) and goes on from there, up to the retry
    /// policy's attempts in a row; `progress` hears each durable offset.
    public func send(
        _ data: Data, to upload: ResumableUpload, chunkSize: Int = 4 << 20,
        progress: (@Sendable (ResumableUpload) async throws -> Void)? = nil
    ) async throws -> String {
        precondition(data.count == upload.length, "the data must be the upload's whole file")
        precondition(chunkSize > 0)
        var upload = upload
        var failures = 0
        while true {
            if upload.isComplete {
                // Complete before this call (resumed after the last answer was lost): ask for the id.
                let status = try await api.uploadStatus(path: .init(id: upload.id))
                guard case .ok(let ok) = status, let media = try ok.body.json.mediaId else {
                    throw PinholeClientError(operation: "uploadStatus", answer: status)
                }
                return media
            }
            let end = min(upload.offset + chunkSize, upload.length)
            let chunk = data.subdata(in: (data.startIndex + upload.offset)..<(data.startIndex + end))
            // A failed attempt (a broken connection, another offset, a server that asks to slow
            // down) is followed by a wait and a HEAD; the caller's own error (from `progress`: the
            // app going away) ends the upload at once.
            let answer: Operations.AppendUpload.Output
            do {
                answer = try await api.appendUpload(
                    path: .init(id: upload.id),
                    headers: .init(tusResumable: ._1_0_0, uploadOffset: upload.offset),
                    body: .applicationOffsetOctetStream(HTTPBody(chunk)))
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                try await retryAfter(error)
                continue
            }
            switch answer {
            case .noContent(let appended):
                upload.offset = appended.headers.uploadOffset
                failures = 0
                try await progress?(upload)
                if let media = appended.headers.pinholeMediaId { return media }
            case .conflict, .tooManyRequests, .serviceUnavailable:
                try await retryAfter(PinholeClientError(operation: "appendUpload", answer: answer))
            case let other:
                throw PinholeClientError(operation: "appendUpload", answer: other)
            }
        }

        /// Counts a failed attempt, waits (doubling), and learns the server's offset; throws
        /// `failure` once the policy's attempts are spent.
        func retryAfter(_ failure: any Error) async throws {
            failures += 1
            guard failures < retry.maxAttempts else { throw failure }
            try await Task.sleep(for: retry.backoff * (1 << min(failures - 1, 10)))
            upload = try await resumePoint(of: upload)
            try await progress?(upload)
        }
    }
}
