import Contracts
import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import ServiceHTTP

/// The one way bytes become a media object, whichever way they came (a single-request upload,
/// a presigned PUT, the last byte of a resumable upload; evidence uses the first two steps):
///
/// 1. **Sniff**: the type is read from the first bytes; it must be one the route accepts and,
///    when the client claimed a type, that one (415).
/// 2. **Hash**: the SHA-256 is computed as the bytes are staged (``stage(_:limit:tooLarge:claimed:accepted:)``;
///    resumable uploads hash as they append).
/// 3. **Inspect**: a video's container is read (duration, size, codecs; 415 when it is not a
///    whole MP4 or QuickTime file), and a challenge clip must be a video of the configured
///    length (415, 422).
/// 4. **Admit**: photos are processed now (422 when they cannot be), videos queued, and the
///    row recorded by the caller (``admit(_:id:owner:type:sha256:byteSize:purpose:save:)``).
///
/// A refusal is a ``MediaRejection``; what was staged for it is gone.
struct MediaIntake: Sendable {
    let processor: MediaProcessor
    /// How long a challenge clip may last (`media.clip.*`).
    let clipDuration: ClosedRange<Double>
    let clock: any WallClock

    var blobs: BlobStore { processor.blobs }

    // MARK: - Sniff

    /// The type of the bytes that start with `prefix`: one of `accepted`, and the claimed one
    /// when the client claimed any.
    static func type(of prefix: [UInt8], claimed: String?, accepted: Set<String>) throws -> String {
        guard let detected = ContentSniffer.contentType(of: prefix), accepted.contains(detected) else {
            throw MediaRejection(
                reason: "the bytes are not one of \(accepted.sorted().joined(separator: ", "))",
                code: .unsupportedMediaType)
        }
        if let claimed, claimed != detected {
            throw MediaRejection(
                reason: "the upload claims `\(claimed)` but the bytes are `\(detected)`", code: .unsupportedMediaType)
        }
        return detected
    }

    // MARK: - Hash

    /// Bytes in a staging file, flushed and hashed.
    struct Staged: Sendable {
        let file: URL
        let sha256: String
        let byteCount: Int
        /// The sniffed type, when the caller asked for one.
        let contentType: String?
    }

    /// Streams `body` into a staging file, hashing it, at most `limit` bytes (`tooLarge`
    /// beyond). With `accepted`, the type is read from the first bytes as soon as they arrive
    /// (so a wrong file is refused before the rest is read). Nothing stays behind on failure.
    func stage(
        _ body: some AsyncSequence<ByteBuffer, any Error>, limit: Int, tooLarge: ServiceError, claimed: String?,
        accepted: Set<String>?
    ) async throws -> Staged {
        let writer = try blobs.makeWriter()
        do {
            var sniffed: String?
            for try await buffer in body {
                try await writer.append(buffer)
                if writer.byteCount > limit { throw tooLarge }
                if let accepted, sniffed == nil, writer.prefix.count >= ContentSniffer.prefixLength {
                    sniffed = try Self.type(of: writer.prefix, claimed: claimed, accepted: accepted)
                }
            }
            guard writer.byteCount > 0 else { throw ServiceError.validation("The upload is empty.") }
            if let accepted, sniffed == nil {
                sniffed = try Self.type(of: writer.prefix, claimed: claimed, accepted: accepted)
            }
            let sha256 = try await writer.finish()
            return Staged(file: writer.temporary, sha256: sha256, byteCount: writer.byteCount, contentType: sniffed)
        } catch {
            writer.discard()
            throw error
        }
    }

    /// A whole file in one request body (a single-request upload, a presigned PUT) as media
    /// `id` of `owner`, through every step; a refusal is answered with its code.
    func receive(
        _ request: Request, id: String, owner: String, claimed: String?, accepted: Set<String>, limit: Int,
        save: (MediaRecord) async throws -> Void
    ) async throws -> MediaRecord {
        if let length = request.headers[.contentLength].flatMap(Int.init), length > limit {
            throw Self.tooLarge(limit)
        }
        do {
            let staged = try await stage(
                request.body, limit: limit, tooLarge: Self.tooLarge(limit), claimed: claimed, accepted: accepted)
            return try await admit(
                staged.file, id: id, owner: owner, type: staged.contentType!, sha256: staged.sha256,
                byteSize: staged.byteCount, purpose: nil, save: save)
        } catch let rejection as MediaRejection {
            throw rejection.error()
        }
    }

    static func tooLarge(_ limit: Int) -> ServiceError {
        ServiceError(.payloadTooLarge, "The file is larger than this upload accepts (\(limit) bytes).")
    }

    // MARK: - Inspect and admit

    /// Makes the sniffed, hashed local `file` media `id` of `owner`: a video's container is
    /// read and the clip rules of `purpose` applied, then the processor admits it (a photo is
    /// processed now) and `save` records the row. On a refusal the file is deleted.
    func admit(
        _ file: URL, id: String, owner: String, type: String, sha256: String, byteSize: Int, purpose: UploadPurpose?,
        save: (MediaRecord) async throws -> Void
    ) async throws -> MediaRecord {
        var record = MediaRecord(
            id: id, ownerId: owner, contentType: type, byteSize: byteSize, sha256: sha256, status: .processing,
            visibility: .private, createdAt: clock.now())
        do {
            if type.hasPrefix("video/") {
                record.setFacts(try await inspect(file, purpose: purpose))
            } else if purpose == .challengeClip {
                throw MediaRejection(
                    reason: "a challenge clip must be an MP4 or QuickTime video", code: .unsupportedMediaType)
            }
        } catch {
            try? FileManager.default.removeItem(at: file)
            throw error
        }
        return try await processor.admit(file, as: record, save: save)
    }

    /// What the container says; a challenge clip must last as configured.
    private func inspect(_ file: URL, purpose: UploadPurpose?) async throws -> VideoInfo {
        let video: VideoInfo
        do {
            video = try await NIOThreadPool.singleton.runIfActive { try ISOBMFF.videoInfo(of: file) }
        } catch let malformed as ISOBMFF.Malformed {
            throw MediaRejection(
                reason: "the video cannot be read: \(malformed.description)", code: .unsupportedMediaType)
        }
        if purpose == .challengeClip, !clipDuration.contains(video.duration) {
            let range = "\(clipDuration.lowerBound)–\(clipDuration.upperBound) s"
            throw MediaRejection(
                reason: "a challenge clip lasts \(range); this one lasts \(String(format: "%.2f", video.duration)) s",
                code: .validationFailed)
        }
        return video
    }
}
