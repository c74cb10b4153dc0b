import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceHTTP
import TestSupport
import Testing

@testable import MediaService

/// Presigned upload and download URLs: bound, signed, time-limited; downloads with Range and ETag.
@Suite struct PresignedURLTests {
    static let alice = "00000000-0000-4000-8000-00000000000a"
    static let bob = "00000000-0000-4000-8000-00000000000b"

    /// The base64url character with the same top four bits and the lowest bit flipped: for a
    /// 32-byte value, the same bytes spelled differently.
    static func spareBitFlipped(_ character: Character) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        let index = alphabet.firstIndex(of: character)!
        return String(alphabet[index ^ 1])
    }

    func put(
        _ client: some TestClientProtocol, _ url: String, _ bytes: Data, type: String = "image/jpeg"
    )
        async throws -> TestResponse
    {
        try await client.execute(uri: url, method: .put, headers: [.contentType: type], body: ByteBuffer(bytes: bytes))
    }

    @Test func aPresignedPutStoresOneObjectForItsOwnerAndNothingElse() async throws {
        try await TestMedia.withRouter { harness, client in
            let token = try await harness.token(for: Self.alice)
            let response = try await client.post(
                "/v1/media/presign", PresignUploadRequest(contentType: "image/jpeg", purpose: .post), token: token)
            #expect(response.status == .created)
            let presigned = try response.json(PresignedURL.self)
            #expect(presigned.method == "PUT")
            #expect(presigned.maxBytes == 10 << 20)
            #expect(presigned.headers["Content-Type"] == "image/jpeg")

            // Altered in any way, it is refused before a byte is kept.
            let photo = TestImages.jpeg(seed: 8, size: 5000)
            let tampered = [
                presigned.url.replacingOccurrences(of: "max=10485760", with: "max=99999999"),
                presigned.url.replacingOccurrences(of: "owner=\(Self.alice)", with: "owner=\(Self.bob)"),
                presigned.url.replacingOccurrences(of: "type=image%2Fjpeg", with: "type=image%2Fpng"),
                // Flipping a spare bit of the signature's last character (a different spelling of
                // the same bytes), and changing it outright.
                String(presigned.url.dropLast()) + Self.spareBitFlipped(presigned.url.last!),
                String(presigned.url.dropLast()) + (presigned.url.hasSuffix("Q") ? "g" : "Q"),
                presigned.url.replacingOccurrences(of: presigned.mediaId, with: UUID().uuidString.lowercased()),
            ]
            for url in tampered {
                #expect(try await put(client, url, photo).status == .forbidden, "\(url)")
            }
            #expect(try await put(client, presigned.url, photo, type: "image/png").status == .forbidden)
            #expect(
                try await put(client, presigned.url, TestImages.png(seed: 1), type: "image/jpeg").status
                    == .unsupportedMediaType)

            let stored = try await put(client, presigned.url, photo)
            #expect(stored.status == .created)
            #expect(try stored.json(MediaObject.self).id == presigned.mediaId)
            #expect(try await client.get("/v1/media/\(presigned.mediaId)", token: token).status == .ok)
            #expect(try await put(client, presigned.url, photo).status == .conflict)

            // Expired.
            let late = try await client.post(
                "/v1/media/presign", PresignUploadRequest(contentType: "image/jpeg"), token: token
            ).json(PresignedURL.self)
            harness.clock.advance(by: 3601)
            #expect(try await put(client, late.url, photo).status == .forbidden)
            let fresh = try await harness.token(for: Self.alice)
            #expect(
                try await client.post("/v1/media/presign", PresignUploadRequest(contentType: "text/html"), token: fresh)
                    .status == .unsupportedMediaType)
        }
    }

    @Test func aPresignedGetServesRangesAndETagsUntilItExpires() async throws {
        try await TestMedia.withRouter { harness, client in
            let token = try await harness.token(for: Self.alice)
            let photo = TestImages.jpeg(seed: 9, size: 3000)
            let uploaded = try await client.execute(
                uri: "/v1/media", method: .post,
                headers: [.authorization: "Bearer \(token)", .contentType: "image/jpeg"],
                body: ByteBuffer(bytes: photo)
            ).json(MediaObject.self)
            let bob = try await harness.token(for: Self.bob)
            #expect(try await client.get("/v1/media/\(uploaded.id)/url", token: bob).status == .notFound)
            let link = try await client.get("/v1/media/\(uploaded.id)/url", token: token).json(PresignedURL.self)
            #expect(link.method == "GET")

            // A link can be passed on, so it serves the copy without metadata, not the original.
            let whole = try await client.execute(uri: link.url, method: .get)
            #expect(whole.status == .ok)
            let served = Data(whole.body.readableBytesView)
            #expect(served != photo)
            #expect(try TestMedia.size(ofJPEG: served) == (64, 48))
            #expect(whole.headers[.eTag] == "\"\(Hex.encode(SHA256.hash(data: served)))\"")
            #expect(whole.headers[.contentType] == "image/jpeg")
            #expect(whole.headers[.acceptRanges] == "bytes")
            let etag = try #require(whole.headers[.eTag])
            #expect(
                try await client.execute(uri: link.url, method: .get, headers: [.ifNoneMatch: etag]).status
                    == .notModified)

            let first = try await client.execute(uri: link.url, method: .get, headers: [.range: "bytes=0-9"])
            #expect(first.status == .partialContent)
            #expect(first.headers[.contentRange] == "bytes 0-9/\(served.count)")
            #expect(Data(first.body.readableBytesView) == served.prefix(10))
            let tail = try await client.execute(uri: link.url, method: .get, headers: [.range: "bytes=-5"])
            #expect(Data(tail.body.readableBytesView) == served.suffix(5))
            let beyond = try await client.execute(
                uri: link.url, method: .get, headers: [.range: "bytes=\(served.count)-"])
            #expect(beyond.status == .rangeNotSatisfiable)
            #expect(beyond.headers[.contentRange] == "bytes */\(served.count)")
            // The token-protected route does ranges too.
            let ranged = try await client.execute(
                uri: "/v1/media/\(uploaded.id)/content", method: .get,
                headers: [.authorization: "Bearer \(token)", .range: "bytes=100-199"])
            #expect(Data(ranged.body.readableBytesView) == photo[100..<200])

            #expect(try await client.execute(uri: link.url + "0", method: .get).status == .forbidden)
            #expect(try await client.execute(uri: "/v1/media/presigned/..%2Fmedia", method: .get).status == .notFound)
            harness.clock.advance(by: 86_401)
            #expect(try await client.execute(uri: link.url, method: .get).status == .forbidden)
        }
    }
}
