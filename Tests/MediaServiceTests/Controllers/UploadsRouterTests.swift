import Crypto
import Foundation
import GRDB
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import MediaService

/// tus 1.0.0 resumable uploads, in process.
@Suite struct UploadsRouterTests {
    static let alice = "00000000-0000-4000-8000-00000000000a"
    static let bob = "00000000-0000-4000-8000-00000000000b"

    static func metadata(_ pairs: [String: String]) -> String {
        pairs.sorted { $0.key < $1.key }.map { "\($0.key) \(Data($0.value.utf8).base64EncodedString())" }
            .joined(separator: ",")
    }

    static func header(_ name: String) -> HTTPField.Name { HTTPField.Name(name)! }

    /// `POST /v1/uploads`.
    func create(
        _ client: some TestClientProtocol, token: String, length: Int, metadata: [String: String] = [:],
        body: Data? = nil
    ) async throws -> TestResponse {
        var headers: HTTPFields = [
            .authorization: "Bearer \(token)", Self.header("tus-resumable"): "1.0.0",
            Self.header("upload-length"): String(length), Self.header("upload-metadata"): Self.metadata(metadata),
        ]
        if body != nil { headers[.contentType] = "application/offset+octet-stream" }
        return try await client.execute(
            uri: "/v1/uploads", method: .post, headers: headers, body: body.map { ByteBuffer(bytes: $0) })
    }

    func patch(
        _ client: some TestClientProtocol, _ location: String, token: String, offset: Int, _ bytes: Data,
        checksum: String? = nil
    ) async throws -> TestResponse {
        var headers: HTTPFields = [
            .authorization: "Bearer \(token)", Self.header("tus-resumable"): "1.0.0",
            Self.header("upload-offset"): String(offset), .contentType: "application/offset+octet-stream",
        ]
        if let checksum { headers[Self.header("upload-checksum")] = checksum }
        return try await client.execute(uri: location, method: .patch, headers: headers, body: ByteBuffer(bytes: bytes))
    }

    func head(_ client: some TestClientProtocol, _ location: String, token: String) async throws -> TestResponse {
        try await client.execute(
            uri: location, method: .head,
            headers: [.authorization: "Bearer \(token)", Self.header("tus-resumable"): "1.0.0"])
    }

    static func sha256Hex(_ data: Data) -> String { Hex.encode(SHA256.hash(data: data)) }

    @Test func aFileArrivesInPiecesWithChecksumsAndBecomesMedia() async throws {
        try await TestMedia.withRouter { harness, client in
            let token = try await harness.token(for: Self.alice)
            let photo = TestImages.jpeg(seed: 3, size: 300_000)
            let created = try await create(
                client, token: token, length: photo.count,
                metadata: [
                    "filename": "../../etc/passwd", "filetype": "image/jpeg", "purpose": "post",
                    "sha256": Self.sha256Hex(photo),
                ])
            #expect(created.status == .created)
            #expect(created.headers[Self.header("tus-resumable")] == "1.0.0")
            #expect(created.headers[Self.header("upload-expires")]?.hasSuffix(" GMT") == true)
            let location = try #require(created.headers[.location])
            #expect(location.hasPrefix("/v1/uploads/"))
            #expect(try await head(client, location, token: token).headers[Self.header("upload-offset")] == "0")

            let first = photo.prefix(100_000)
            let sha1 = "sha1 " + Data(Insecure.SHA1.hash(data: first)).base64EncodedString()
            let one = try await patch(client, location, token: token, offset: 0, first, checksum: sha1)
            #expect(one.status == .noContent)
            #expect(one.headers[Self.header("upload-offset")] == "100000")

            // A stale offset is refused and tells where to resume.
            let stale = try await patch(client, location, token: token, offset: 0, first)
            #expect(stale.status == .conflict)
            #expect(stale.headers[Self.header("upload-offset")] == "100000")

            // A wrong checksum appends nothing (460).
            let rest = photo.dropFirst(100_000)
            let wrong = "sha256 " + Data(SHA256.hash(data: Data("other".utf8))).base64EncodedString()
            let mismatch = try await patch(client, location, token: token, offset: 100_000, rest, checksum: wrong)
            #expect(mismatch.status.code == 460)
            #expect(mismatch.error?.code == .checksumMismatch)
            #expect(try await head(client, location, token: token).headers[Self.header("upload-offset")] == "100000")

            let last = try await patch(
                client, location, token: token, offset: 100_000, rest,
                checksum: "sha256 " + Data(SHA256.hash(data: rest)).base64EncodedString())
            #expect(last.status == .noContent)
            #expect(last.headers[Self.header("upload-offset")] == String(photo.count))
            let mediaID = try #require(last.headers[Self.header("pinhole-media-id")])

            let media = try await client.get("/v1/media/\(mediaID)", token: token).json(MediaObject.self)
            #expect(media.sha256 == Self.sha256Hex(photo))
            #expect(media.contentType == "image/jpeg")
            #expect(media.byteSize == photo.count)
            let status = try await client.get(location, token: token).json(UploadStatus.self)
            #expect(status.state == .ready)
            #expect(status.mediaId == mediaID)
            // Done: further writes and termination are refused.
            #expect(try await patch(client, location, token: token, offset: photo.count, Data([1])).status == .conflict)
            // The file name never named a file: only server-made names are on disk.
            let uploads = harness.directory.url.appendingPathComponent("media/blobs/uploads")
            #expect(try FileManager.default.contentsOfDirectory(atPath: uploads.path).isEmpty)
        }
    }

    @Test func limitsAreCheckedBeforeAnyByteAndNeverWrittenPast() async throws {
        try await TestMedia.withRouter { harness, client in
            let token = try await harness.token(for: Self.alice)
            let tooBig = try await create(
                client, token: token, length: 10 * 1_048_576 + 1, metadata: ["purpose": "avatar"])
            #expect(tooBig.status == .contentTooLarge)
            let video = try await create(
                client, token: token, length: 50 * 1_048_576, metadata: ["purpose": "post", "filetype": "video/mp4"])
            #expect(video.status == .created)
            let clip = try await create(
                client, token: token, length: 100 * 1_048_576 + 1, metadata: ["purpose": "challenge_clip"])
            #expect(clip.status == .contentTooLarge)

            let small = try await create(client, token: token, length: 10)
            let location = try #require(small.headers[.location])
            let over = try await patch(client, location, token: token, offset: 0, TestImages.jpeg(seed: 1, size: 64))
            #expect(over.status == .contentTooLarge)
            #expect(try await head(client, location, token: token).headers[Self.header("upload-offset")] == "0")

            for bad in ["purpose bm9wZQ==", "filename", "filename !!!", "a YQ==,a YQ==", "sha256 YWJj"] {
                var headers: HTTPFields = [
                    .authorization: "Bearer \(token)", Self.header("tus-resumable"): "1.0.0",
                    Self.header("upload-length"): "10", Self.header("upload-metadata"): bad,
                ]
                if bad == "filename" { headers[Self.header("upload-metadata")] = "filename !!!" }
                let response = try await client.execute(uri: "/v1/uploads", method: .post, headers: headers)
                #expect(response.status == .badRequest, "\(bad)")
            }
            let noLength = try await client.execute(
                uri: "/v1/uploads", method: .post,
                headers: [.authorization: "Bearer \(token)", Self.header("tus-resumable"): "1.0.0"])
            #expect(noLength.status == .badRequest)
            // A length is digits: `+10`, `0x0a`, `1e1` and `-0` are not lengths.
            for length in ["+10", "0x0a", "1e1", "-0"] {
                let lenient = try await client.execute(
                    uri: "/v1/uploads", method: .post,
                    headers: [
                        .authorization: "Bearer \(token)", Self.header("tus-resumable"): "1.0.0",
                        Self.header("upload-length"): length,
                    ])
                #expect(lenient.status == .badRequest, "Upload-Length: \(length)")
            }
            let noTus = try await client.execute(
                uri: "/v1/uploads", method: .post,
                headers: [.authorization: "Bearer \(token)", Self.header("upload-length"): "10"])
            #expect(noTus.status == .preconditionFailed)
            #expect(noTus.headers[Self.header("tus-version")] == "1.0.0")
        }
    }

    @Test func bytesThatAreNotWhatWasDeclaredAreRejectedAndNothingIsKept() async throws {
        try await TestMedia.withRouter { harness, client in
            let token = try await harness.token(for: Self.alice)
            let png = TestImages.png(seed: 2, width: 40, height: 30)
            let claimed = try #require(
                try await create(client, token: token, length: png.count, metadata: ["filetype": "image/jpeg"])
                    .headers[.location])
            let refused = try await patch(client, claimed, token: token, offset: 0, png)
            #expect(refused.status == .unsupportedMediaType)
            let status = try await client.get(claimed, token: token).json(UploadStatus.self)
            #expect(status.state == .rejected)
            #expect(status.rejectedReason?.contains("image/png") == true)

            let garbage = Data(repeating: 0x41, count: 64)
            let unknown = try #require(try await create(client, token: token, length: 64).headers[.location])
            #expect(try await patch(client, unknown, token: token, offset: 0, garbage).status == .unsupportedMediaType)

            let jpeg = TestImages.jpeg(seed: 4, size: 4096)
            let lied = try #require(
                try await create(
                    client, token: token, length: jpeg.count, metadata: ["sha256": String(repeating: "ab", count: 32)]
                ).headers[.location])
            let whole = try await patch(client, lied, token: token, offset: 0, jpeg)
            #expect(whole.status.code == 460)
            #expect(try await client.get(lied, token: token).json(UploadStatus.self).state == .rejected)

            // A decompression bomb's shape: the header is read, the pixels never decoded.
            let flood = TestImages.pixelFlood()
            let bomb = try #require(try await create(client, token: token, length: flood.count).headers[.location])
            let exploded = try await patch(client, bomb, token: token, offset: 0, flood)
            #expect(exploded.status == .unprocessableContent)
            #expect(exploded.error?.code == .mediaRejected)
            let bombStatus = try await client.get(bomb, token: token).json(UploadStatus.self)
            #expect(bombStatus.state == .rejected)
            #expect(bombStatus.rejectedReason?.contains("30000×30000 pixels") == true)

            let blobs = harness.directory.url.appendingPathComponent("media/blobs")
            let stored =
                FileManager.default.enumerator(atPath: blobs.path)?.allObjects.compactMap { $0 as? String }
                .filter { !$0.hasPrefix("tmp") && !$0.hasPrefix("uploads") && $0.count > 2 } ?? []
            #expect(stored.isEmpty, "\(stored)")
        }
    }

    @Test func anUploadACrashCaughtWhileFinishingIsRejectedAtTheNextStart() async throws {
        let harness = try ServiceHarness(.media)
        _ = try await MediaService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        // As a crash leaves it: the last byte arrived, no media row was written.
        let now = Date()
        try await harness.database().write { db in
            try UploadRecord(
                id: "0000000a-0000-4000-8000-000000000001", ownerId: Self.alice, purpose: .post, filename: nil,
                filetype: nil, expectedSha256: nil, length: 10, offset: 10, state: .processing, rejectedReason: nil,
                mediaId: nil, createdAt: now, expiresAt: now.addingTimeInterval(3600)
            ).insert(db)
        }
        let parts = try await MediaService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            let token = try await harness.token(for: Self.alice)
            let status = try await client.get("/v1/uploads/0000000a-0000-4000-8000-000000000001", token: token)
                .json(UploadStatus.self)
            #expect(status.state == .rejected)
            #expect(status.rejectedReason?.contains("upload the file again") == true)
        }
    }

    @Test func uploadsAreTheOwnersAndEndByTerminationOrExpiry() async throws {
        try await TestMedia.withRouter { harness, client in
            let alice = try await harness.token(for: Self.alice)
            let bob = try await harness.token(for: Self.bob)
            let location = try #require(try await create(client, token: alice, length: 4096).headers[.location])
            #expect(try await head(client, location, token: bob).status == .notFound)
            #expect(try await patch(client, location, token: bob, offset: 0, Data([1])).status == .notFound)
            #expect(try await client.get("/v1/uploads/not-an-id", token: alice).status == .notFound)

            let deleted = try await client.execute(
                uri: location, method: .delete,
                headers: [.authorization: "Bearer \(alice)", Self.header("tus-resumable"): "1.0.0"])
            #expect(deleted.status == .noContent)
            #expect(try await head(client, location, token: alice).status == .notFound)
            // Its status stays readable, so the app learns what became of it.
            #expect(try await client.get(location, token: alice).json(UploadStatus.self).state == .terminated)

            let later = try #require(try await create(client, token: alice, length: 4096).headers[.location])
            _ = try await patch(client, later, token: alice, offset: 0, TestImages.jpeg(seed: 5, size: 1000))
            harness.clock.advance(by: 25 * 3600)
            let fresh = try await harness.token(for: Self.alice)
            let gone = try await head(client, later, token: fresh)
            #expect(gone.status == .gone)
            // A HEAD answer has no body, so no error envelope (`HeadResponseMiddleware`).
            #expect(gone.body.readableBytes == 0)
            let uploads = harness.directory.url.appendingPathComponent("media/blobs/uploads")
            #expect(try FileManager.default.contentsOfDirectory(atPath: uploads.path).isEmpty)

            let options = try await client.execute(
                uri: "/v1/uploads", method: .options, headers: [.authorization: "Bearer \(fresh)"])
            #expect(options.status == .noContent)
            #expect(
                options.headers[Self.header("tus-extension")]
                    == "creation,creation-with-upload,termination,checksum,expiration")
            #expect(options.headers[Self.header("tus-checksum-algorithm")] == "sha1,sha256")
        }
    }

    @Test func creationWithUploadAndQuotas() async throws {
        try await TestMedia.withRouter(["media.quota.uploadsPerHour": "3", "media.quota.inFlightBytes": "20000"]) {
            harness, client in
            let token = try await harness.token(for: Self.alice)
            let photo = TestImages.jpeg(seed: 6, size: 2000)
            let once = try await create(client, token: token, length: photo.count, body: photo)
            #expect(once.status == .created)
            #expect(once.headers[Self.header("upload-offset")] == String(photo.count))
            #expect(once.headers[Self.header("pinhole-media-id")] != nil)

            #expect(try await create(client, token: token, length: 15_000).status == .created)
            // 15 000 + 6 000 declared and unsent would pass 20 000 bytes in flight.
            let heavy = try await create(client, token: token, length: 6000)
            #expect(heavy.status == .tooManyRequests)
            #expect(try await create(client, token: token, length: 100).status == .created)
            let fourth = try await create(client, token: token, length: 100)
            #expect(fourth.status == .tooManyRequests)
            #expect(fourth.error?.message.contains("3 uploads an hour") == true)
            // The kit's limiter: the window frees its oldest upload an hour after it started.
            #expect(fourth.headers[Self.header("ratelimit-policy")] == "\"uploads\";q=3;w=3600")
            #expect(fourth.headers[Self.header("ratelimit")]?.hasPrefix("\"uploads\";r=0;") == true)
            let retryAfter = fourth.headers[Self.header("retry-after")].flatMap { Int($0) } ?? 0
            #expect((3500...3600).contains(retryAfter))
        }
    }
}
