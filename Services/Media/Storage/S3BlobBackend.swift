import AsyncHTTPClient
import Foundation
import Hummingbird
import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceHTTP

#if canImport(FoundationXML)
import FoundationXML
#endif

/// Blobs as objects in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2, …), key
/// `<prefix><sha256>`, signed with AWS Signature V4. Path-style (`https://host/bucket/key`)
/// or virtual-host style (`https://bucket.host/key`) addressing.
///
/// Uploads stream from the staged file with the SHA-256 already known (it is the blob's
/// name), so the payload is signed without reading it twice; downloads stream with `Range`.
struct S3BlobBackend: BlobBackend {
    enum Addressing: String, Sendable {
        case path
        case virtual
    }

    struct Location: Sendable {
        var scheme: String
        var host: String
        var port: Int?
        var bucket: String
        var addressing: Addressing
        var prefix: String
    }

    let client: HTTPClient
    let signer: S3Signer
    let location: Location
    var clock: any WallClock = SystemClock()

    /// The URL, `Host` header and signed path of the object (or, with `key` nil, the bucket).
    func address(key: String?) -> (url: String, host: String, path: String) {
        let port = location.port.map { ":\($0)" } ?? ""
        let object = key.map { S3Signer.encode(location.prefix + $0, keepingSlash: true) } ?? ""
        switch location.addressing {
        case .path:
            let path = "/\(location.bucket)/\(object)"
            let host = location.host + port
            return ("\(location.scheme)://\(host)\(path)", host, path)
        case .virtual:
            let path = "/\(object)"
            let host = "\(location.bucket).\(location.host)\(port)"
            return ("\(location.scheme)://\(host)\(path)", host, path)
        }
    }

    private func request(
        _ method: HTTPMethod, key: String?, query: [(String, String)] = [],
        payloadHash: String = S3Signer.emptyPayloadHash,
        extra: [String: String] = [:]
    ) -> HTTPClientRequest {
        let (url, host, path) = address(key: key)
        let queryString = query.map { "\(S3Signer.encode($0.0))=\(S3Signer.encode($0.1))" }.joined(separator: "&")
        var request = HTTPClientRequest(url: queryString.isEmpty ? url : "\(url)?\(queryString)")
        request.method = method
        request.headers.add(name: "host", value: host)
        for (name, value) in extra { request.headers.add(name: name, value: value) }
        let signature = signer.sign(
            method: method.rawValue, path: path, query: query, headers: ["host": host], payloadHash: payloadHash,
            date: clock.now())
        for (name, value) in signature { request.headers.add(name: name, value: value) }
        return request
    }

    private func execute(
        _ request: HTTPClientRequest, accepting statuses: Set<UInt> = [200]
    ) async throws
        -> HTTPClientResponse
    {
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: .seconds(300))
        } catch {
            throw ServiceError(.upstreamUnavailable, "Object storage cannot be reached.")
        }
        guard statuses.contains(response.status.code) else {
            let body = try? await response.body.collect(upTo: 4096)
            let detail = body.map { String(buffer: $0) }.flatMap(Self.errorCode) ?? "HTTP \(response.status.code)"
            throw ServiceError(.upstreamUnavailable, "Object storage refused the request (\(detail)).")
        }
        return response
    }

    /// `<Code>NoSuchKey</Code>` from an S3 error document.
    static func errorCode(_ xml: String) -> String? {
        guard let start = xml.range(of: "<Code>"),
            let end = xml.range(of: "</Code>", range: start.upperBound..<xml.endIndex)
        else { return nil }
        return String(xml[start.upperBound..<end.lowerBound])
    }

    func store(_ file: URL, sha256: String, byteSize: Int) async throws {
        var request = self.request(
            .PUT, key: sha256, payloadHash: sha256, extra: ["content-type": "application/octet-stream"])
        request.body = .stream(FileChunks(file: file), length: .known(Int64(byteSize)))
        _ = try await execute(request)
        try? FileManager.default.removeItem(at: file)
    }

    func remove(sha256: String) async throws {
        _ = try await execute(request(.DELETE, key: sha256), accepting: [200, 204, 404])
    }

    func write(sha256: String, range: Range<Int>, to writer: inout any ResponseBodyWriter) async throws {
        let response = try await execute(
            request(.GET, key: sha256, extra: ["range": "bytes=\(range.lowerBound)-\(range.upperBound - 1)"]),
            accepting: [200, 206])
        var remaining = range.count
        for try await buffer in response.body where remaining > 0 {
            let piece = buffer.getSlice(at: buffer.readerIndex, length: min(remaining, buffer.readableBytes)) ?? buffer
            remaining -= piece.readableBytes
            try await writer.write(piece)
        }
    }

    func localFile(sha256: String, scratch: URL) async throws -> (file: URL, isCopy: Bool) {
        let response = try await execute(request(.GET, key: sha256))
        guard
            FileManager.default.createFile(atPath: scratch.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else { throw ServiceError(.internalError, "The blob store cannot create files.") }
        let handle = try FileHandle(forWritingTo: scratch)
        do {
            for try await buffer in response.body {
                let bytes = Data(buffer.readableBytesView)
                try await NIOThreadPool.singleton.runIfActive { try handle.write(contentsOf: bytes) }
            }
            try handle.close()
        } catch {
            try? handle.close()
            try? FileManager.default.removeItem(at: scratch)
            throw error
        }
        return (scratch, true)
    }

    /// ListObjectsV2, page by page.
    func list() async throws -> [StoredBlob] {
        var blobs: [StoredBlob] = []
        var token: String?
        repeat {
            var query = [("list-type", "2")]
            if !location.prefix.isEmpty { query.append(("prefix", location.prefix)) }
            if let token { query.append(("continuation-token", token)) }
            let response = try await execute(request(.GET, key: nil, query: query))
            let body = try await response.body.collect(upTo: 16 << 20)
            let page = ListPage(Data(body.readableBytesView))
            for (key, modified) in page.objects {
                let name = key.dropFirst(location.prefix.count)
                if key.hasPrefix(location.prefix), Self.isBlobName(name) {
                    blobs.append(StoredBlob(sha256: String(name), storedAt: modified))
                }
            }
            token = page.nextToken
        } while token != nil
        return blobs
    }
}

/// A file as a stream of 1 MiB buffers, read on NIO's blocking pool.
struct FileChunks: AsyncSequence, Sendable {
    typealias Element = ByteBuffer
    let file: URL

    struct AsyncIterator: AsyncIteratorProtocol {
        let file: URL
        var handle: FileHandle?

        mutating func next() async throws -> ByteBuffer? {
            if handle == nil { handle = try FileHandle(forReadingFrom: file) }
            let handle = self.handle!
            let chunk = try await NIOThreadPool.singleton.runIfActive { try handle.read(upToCount: 1 << 20) ?? Data() }
            if chunk.isEmpty {
                try? handle.close()
                return nil
            }
            return ByteBuffer(bytes: chunk)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(file: file) }
}

/// One page of a ListObjectsV2 answer: keys with their `LastModified`, and the token of the
/// next page when the listing is truncated.
struct ListPage {
    var objects: [(key: String, modified: Date)] = []
    var nextToken: String?

    init(_ xml: Data) {
        let delegate = Delegate()
        let parser = XMLParser(data: xml)
        parser.delegate = delegate
        _ = parser.parse()
        objects = delegate.objects
        nextToken = delegate.truncated ? delegate.nextToken : nil
    }

    private final class Delegate: NSObject, XMLParserDelegate {
        var objects: [(key: String, modified: Date)] = []
        var nextToken: String?
        var truncated = false
        private var text = ""
        private var key: String?
        private var modified: Date?

        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            text = ""
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

        func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
            switch name {
            case "Key": key = text
            case "LastModified":
                // S3 writes milliseconds; other stores may not.
                modified =
                    (try? Date(text, strategy: .iso8601.year().month().day().time(includingFractionalSeconds: true)))
                    ?? (try? Date(text, strategy: .iso8601))
            case "Contents":
                if let key { objects.append((key, modified ?? .distantPast)) }
                (key, modified) = (nil, nil)
            case "NextContinuationToken": nextToken = text
            case "IsTruncated": truncated = text == "true"
            default: break
            }
        }
    }
}
