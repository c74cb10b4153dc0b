import Contracts
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceHTTP
import TestSupport
import Testing

@testable import MediaService

/// The S3-compatible blob backend: Signature V4 against AWS's published example, both
/// addressing styles, and the media service run on a real S3 implementation (moto's server).
@Suite struct S3StorageTests {
    static let alice = "00000000-0000-4000-8000-00000000000a"
    static let bob = "00000000-0000-4000-8000-00000000000b"

    /// AWS's "GET Object" example (Signature Version 4, "Examples of how to calculate the
    /// signature"): a virtual-host request for `test.txt` of `examplebucket` with a range.
    @Test func signaturesMatchAWSsPublishedExample() throws {
        let signer = S3Signer(
            accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            region: "us-east-1")
        let headers = signer.sign(
            method: "GET", path: "/test.txt",
            headers: ["Host": "examplebucket.s3.amazonaws.com", "Range": "bytes=0-9"],
            payloadHash: S3Signer.emptyPayloadHash, date: Date(timeIntervalSince1970: 1_369_353_600))
        #expect(headers["x-amz-date"] == "20130524T000000Z")
        #expect(
            headers["authorization"]
                == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,"
                + "SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,"
                + "Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test func objectsAreAddressedPathOrVirtualHostStyle() {
        let hash = String(repeating: "ab", count: 32)
        func backend(_ addressing: S3BlobBackend.Addressing, port: Int?) -> S3BlobBackend {
            S3BlobBackend(
                client: .shared, signer: S3Signer(accessKeyID: "k", secretAccessKey: "s", region: "eu-west-1"),
                location: .init(
                    scheme: "https", host: "s3.eu-west-1.amazonaws.com", port: port, bucket: "pinhole-media",
                    addressing: addressing, prefix: "blobs/"))
        }
        let virtual = backend(.virtual, port: nil).address(key: hash)
        #expect(virtual.url == "https://pinhole-media.s3.eu-west-1.amazonaws.com/blobs/\(hash)")
        #expect(virtual.host == "pinhole-media.s3.eu-west-1.amazonaws.com")
        #expect(virtual.path == "/blobs/\(hash)")
        let path = backend(.path, port: 9000).address(key: hash)
        #expect(path.url == "https://s3.eu-west-1.amazonaws.com:9000/pinhole-media/blobs/\(hash)")
        #expect(path.host == "s3.eu-west-1.amazonaws.com:9000")
        #expect(path.path == "/pinhole-media/blobs/\(hash)")
        #expect(backend(.path, port: nil).address(key: nil).path == "/pinhole-media/")
    }

    /// moto comes from PyPI through scripts/setup; without it this fails rather than skips.
    @Test func mediaLivesInAnS3BucketAndOrphansAreCollectedThere() async throws {
        let python = try #require(await MotoServer.python(), "scripts/setup installs moto[server]")
        let moto = try await MotoServer.start(python: python)
        do {
            try await useBucket(on: moto)
        } catch {
            await moto.stop()
            throw error
        }
        await moto.stop()
    }

    func useBucket(on moto: MotoServer) async throws {
        try await moto.createBucket("pinhole-media")
        let harness = try ServiceHarness(
            .media,
            config: [
                "media.storage": "s3", "media.s3.endpoint": moto.endpoint, "media.s3.bucket": "pinhole-media",
                "media.s3.addressing": "path", "media.s3.prefix": "blobs/", "media.s3.accessKeyId": "testing",
                "media.s3.secretAccessKey": "testing",
            ])
        let parts = try await MediaService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        let processor = try TestMedia.processor(parts)
        #expect(processor.blobs.backend is S3BlobBackend)
        try await harness.test(parts) { client in
            let alice = try await harness.token(for: Self.alice)
            let bob = try await harness.token(for: Self.bob)
            let photo = TestImages.jpeg(seed: 21, size: 300_000, gps: true)
            let media = try await client.execute(
                uri: "/v1/media", method: .post,
                headers: [.authorization: "Bearer \(alice)", .contentType: "image/jpeg"],
                body: ByteBuffer(bytes: photo)
            ).json(MediaObject.self)
            #expect(media.status == .ready)
            let record = try #require(try await processor.store.media(id: media.id))

            // Original, display copy and thumbnail are objects in the bucket; nothing stays local.
            let listed = Set(try await processor.blobs.backend.list().map(\.sha256))
            #expect(listed == Set(record.blobHashes))
            let local = FileManager.default.enumerator(
                atPath: harness.directory.url.appendingPathComponent("media/blobs").path)?.allObjects
                .compactMap { $0 as? String }.filter { $0.count == 64 }
            #expect(local?.isEmpty == true)

            // Reads stream from the bucket, ranges included.
            let whole = try await client.get("/v1/media/\(media.id)/content", token: alice)
            #expect(Data(whole.body.readableBytesView) == photo)
            let part = try await client.execute(
                uri: "/v1/media/\(media.id)/content", method: .get,
                headers: [.authorization: "Bearer \(alice)", .range: "bytes=1000-199999"])
            #expect(part.status == .partialContent)
            #expect(Data(part.body.readableBytesView) == photo[1000..<200_000])
            try await TestMedia.attach(media.id, owner: Self.alice, store: processor.store)
            let copy = Data(try await client.get("/v1/media/\(media.id)/content", token: bob).body.readableBytesView)
            #expect(try !TestMedia.hasEXIF(copy))

            // A resumable upload ends in the bucket too.
            let png = TestImages.png(seed: 4, width: 90, height: 70)
            let tus = try await client.execute(
                uri: "/v1/uploads", method: .post,
                headers: [
                    .authorization: "Bearer \(alice)", HTTPField.Name("tus-resumable")!: "1.0.0",
                    HTTPField.Name("upload-length")!: String(png.count),
                    .contentType: "application/offset+octet-stream",
                ], body: ByteBuffer(bytes: png))
            let pngID = try #require(tus.headers[HTTPField.Name("pinhole-media-id")!])
            let pngContent = try await client.get("/v1/media/\(pngID)/content", token: alice)
            #expect(Data(pngContent.body.readableBytesView) == png)

            // An object no row uses is collected once older than the grace period.
            let scratch = processor.blobs.scratchFile()
            try Data("orphan".utf8).write(to: scratch)
            let orphan = try await processor.blobs.storeHashing(scratch).sha256
            let collector = BlobCollector(
                store: processor.store, blobs: processor.blobs, clock: harness.clock, grace: 60,
                interval: .seconds(3600), logger: harness.runtime.logger)
            #expect(await collector.collect().isEmpty)
            harness.clock.advance(by: 3600)
            #expect(await collector.collect() == [orphan])
            let after = Set(try await processor.blobs.backend.list().map(\.sha256))
            #expect(!after.contains(orphan))
            #expect(after.isSuperset(of: record.blobHashes))
        }
    }
}
