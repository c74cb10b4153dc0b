import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import NIOPosix
import ServiceHTTP

/// The bytes of a media object as an HTTP answer: `Content-Type`, a strong `ETag` (the
/// SHA-256), `304` on `If-None-Match`, and one `Range` (`bytes=a-b`, `a-`, `-n`) as `206`
/// with `Content-Range` (`416` outside the file). Only the asked-for bytes are read, and they
/// are streamed from the blob store, never held whole.
enum BlobResponse {
    /// Answers with the stored blob `sha256` of `byteSize` bytes, served as `contentType`.
    static func make(
        _ request: Request, sha256: String, contentType: String, byteSize: Int, blobs: BlobStore, cacheControl: String
    ) async throws -> Response {
        let etag = "\"\(sha256)\""
        var headers: HTTPFields = [.eTag: etag, .cacheControl: cacheControl, .acceptRanges: "bytes"]
        if request.headers[.ifNoneMatch] == etag {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = contentType
        let size = byteSize
        var range = 0..<size
        var status = HTTPResponse.Status.ok
        if let header = request.headers[.range] {
            guard let asked = parse(header, size: size) else {
                throw ServiceError(
                    .rangeNotSatisfiable, "The range is outside the file (\(size) bytes).",
                    headers: [.contentRange: "bytes */\(size)"])
            }
            range = asked
            status = .partialContent
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(size)"
        }
        let (backend, wanted) = (blobs.backend, range)
        return Response(
            status: status, headers: headers,
            body: ResponseBody(contentLength: wanted.count) { writer in
                try await backend.write(sha256: sha256, range: wanted, to: &writer)
                try await writer.finish(nil)
            })
    }

    /// One byte range of a file of `size` bytes, or nil when it is malformed or unsatisfiable.
    static func parse(_ header: String, size: Int) -> Range<Int>? {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst(6).split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard spec.count == 2 else { return nil }
        if spec[0].isEmpty {
            guard let suffix = Int(spec[1]), suffix > 0, size > 0 else { return nil }
            return max(0, size - suffix)..<size
        }
        guard let start = Int(spec[0]), start >= 0, start < size else { return nil }
        let end = spec[1].isEmpty ? size - 1 : Int(spec[1]).map { min($0, size - 1) }
        guard let end, end >= start else { return nil }
        return start..<(end + 1)
    }
}

extension BlobResponse {
    /// What `viewer` downloads of a media object: its owner the original; everyone else the
    /// processed copy without metadata, when there is one.
    static func make(
        _ request: Request, record: MediaRecord, viewer: String?, blobs: BlobStore, cacheControl: String
    ) async throws -> Response {
        if viewer != record.ownerId, let display = record.displaySha256, let type = record.displayType,
            let size = record.displaySize
        {
            return try await make(
                request, sha256: display, contentType: type, byteSize: size, blobs: blobs, cacheControl: cacheControl)
        }
        return try await make(
            request, sha256: record.sha256, contentType: record.contentType, byteSize: record.byteSize, blobs: blobs,
            cacheControl: cacheControl)
    }
}
