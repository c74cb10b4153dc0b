import Contracts
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

/// Processing: libvips for photos (metadata-free copy, thumbnail), ffmpeg for videos (poster,
/// copy without location), the `processing → ready | rejected` moves, the events that reach
/// referencing services, and the collection of orphaned blobs.
@Suite struct MediaProcessingTests {
    static let alice = "00000000-0000-4000-8000-00000000000a"
    static let bob = "00000000-0000-4000-8000-00000000000b"

    /// A whole file in one tus creation-with-upload; returns the answer.
    func tusUpload(
        _ client: some TestClientProtocol, _ data: Data, purpose: String, token: String
    ) async throws -> TestResponse {
        try await client.execute(
            uri: "/v1/uploads", method: .post,
            headers: [
                .authorization: "Bearer \(token)", HTTPField.Name("tus-resumable")!: "1.0.0",
                HTTPField.Name("upload-length")!: String(data.count),
                HTTPField.Name("upload-metadata")!: "purpose \(Data(purpose.utf8).base64EncodedString())",
                .contentType: "application/offset+octet-stream",
            ], body: ByteBuffer(bytes: data))
    }

    /// Event types and recipients waiting in media's outbox.
    /// What the referencing services hear (`media.described`, for every viewer's copy, aside).
    func outbox(_ harness: ServiceHarness) throws -> [String] {
        try harness.database().read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT e.type || ' → ' || d.subscriber FROM kit_outbox_delivery d
                    JOIN kit_outbox_event e ON e.seq = d.event_seq WHERE e.type != 'media.described'
                    ORDER BY e.seq, d.subscriber
                    """)
        }
    }

    func blobExists(_ harness: ServiceHarness, _ hash: String) -> Bool {
        FileManager.default.fileExists(
            atPath: harness.directory.url.appendingPathComponent("media/blobs/\(hash.prefix(2))/\(hash)").path)
    }

    @Test func othersDownloadAnUprightCopyWithoutEXIFAndEveryoneGetsAThumbnail() async throws {
        try await TestMedia.withParts { harness, processor, client in
            let alice = try await harness.token(for: Self.alice)
            let bob = try await harness.token(for: Self.bob)
            let original = TestImages.jpeg(seed: 3, gps: true)
            #expect(try TestMedia.hasEXIF(original))
            let media = try await client.execute(
                uri: "/v1/media", method: .post,
                headers: [.authorization: "Bearer \(alice)", .contentType: "image/jpeg"],
                body: ByteBuffer(bytes: original)
            ).json(MediaObject.self)
            #expect(media.status == .ready)
            #expect(media.width == 64 && media.height == 48)
            #expect(media.thumbnailUrl == "/v1/media/\(media.id)/thumbnail")
            #expect(media.posterUrl == nil)

            // The owner gets back exactly what they sent.
            let own = try await client.get("/v1/media/\(media.id)/content", token: alice)
            #expect(Data(own.body.readableBytesView) == original)

            try await TestMedia.attach(media.id, owner: Self.alice, store: processor.store)
            let shared = try await client.get("/v1/media/\(media.id)/content", token: bob)
            #expect(shared.status == .ok)
            let copy = Data(shared.body.readableBytesView)
            #expect(copy != original)
            #expect(try !TestMedia.hasEXIF(copy))
            #expect(copy.range(of: Data("Exif".utf8)) == nil)
            #expect(try TestMedia.size(ofJPEG: copy) == (64, 48))

            let thumbnail = try await client.get("/v1/media/\(media.id)/thumbnail", token: bob)
            #expect(thumbnail.status == .ok)
            #expect(thumbnail.headers[.contentType] == "image/jpeg")
            #expect(try TestMedia.size(ofJPEG: Data(thumbnail.body.readableBytesView)) == (300, 300))
            #expect(try await client.get("/v1/media/\(media.id)/poster", token: bob).status == .notFound)
        }
    }

    @Test func aWebPStaysWebPAndGetsAThumbnail() async throws {
        try await TestMedia.withParts { harness, processor, client in
            let alice = try await harness.token(for: Self.alice)
            let answer = try await tusUpload(client, try TestMedia.webp(), purpose: "post", token: alice)
            #expect(answer.status == .created)
            let id = try #require(answer.headers[HTTPField.Name("pinhole-media-id")!])
            let media = try await client.get("/v1/media/\(id)", token: alice).json(MediaObject.self)
            #expect(media.contentType == "image/webp")
            #expect(media.status == .ready)
            #expect(media.width == 64 && media.height == 48)
            let record = try #require(try await processor.store.media(id: id))
            #expect(record.displayType == "image/webp")
            let thumbnail = try await client.get("/v1/media/\(id)/thumbnail", token: alice)
            #expect(try TestMedia.size(ofJPEG: Data(thumbnail.body.readableBytesView)) == (300, 300))
        }
    }

    @Test func aPixelLimitIsEnforcedFromTheHeader() async throws {
        try await TestMedia.withParts(["media.maxPixels": "3000"]) { harness, _, client in
            let token = try await harness.token(for: Self.alice)
            // 64×48 = 3072 pixels: one row too many.
            let refused = try await client.execute(
                uri: "/v1/media", method: .post,
                headers: [.authorization: "Bearer \(token)", .contentType: "image/jpeg"],
                body: ByteBuffer(bytes: TestImages.jpeg()))
            #expect(refused.status == .unprocessableContent)
            #expect(refused.error?.code == .mediaRejected)
            #expect(refused.error?.message.contains("64×48 pixels") == true)
            let small = try await client.execute(
                uri: "/v1/media", method: .post,
                headers: [.authorization: "Bearer \(token)", .contentType: "image/png"],
                body: ByteBuffer(bytes: TestImages.png(width: 50, height: 60)))
            #expect(small.status == .created)
        }
    }

    /// ffmpeg is optional for operators; scripts/setup installs it, so these tests need it.
    @Test func videosGetAPosterAndLoseTheirLocationAndReferencesHearOnce() async throws {
        try await TestMedia.withParts { harness, processor, client in
            let alice = try await harness.token(for: Self.alice)
            let bob = try await harness.token(for: Self.bob)
            let video = try await TestMedia.video(seconds: 15)
            #expect(video.range(of: Data("+52.5200".utf8)) != nil)
            let answer = try await tusUpload(client, video, purpose: "challenge_clip", token: alice)
            #expect(answer.status == .created)
            let uploadPath = try #require(answer.headers[.location])
            let id = try #require(answer.headers[HTTPField.Name("pinhole-media-id")!])

            // Checked and stored; the poster comes next.
            var media = try await client.get("/v1/media/\(id)", token: alice).json(MediaObject.self)
            #expect(media.status == .processing)
            #expect(media.durationMs == 15_000 && media.width == 160 && media.height == 120)
            #expect(try await client.get(uploadPath, token: alice).json(UploadStatus.self).state == .processing)
            // Feed references it meanwhile.
            try await TestMedia.attach(id, owner: Self.alice, source: .feed, store: processor.store)
            #expect(try outbox(harness).isEmpty)

            let first = try #require(try await processor.process(id: id))
            #expect(first.status == .ready)
            media = try await client.get("/v1/media/\(id)", token: alice).json(MediaObject.self)
            #expect(media.status == .ready)
            #expect(media.posterUrl == "/v1/media/\(id)/poster")
            #expect(try await client.get(uploadPath, token: alice).json(UploadStatus.self).state == .ready)
            #expect(try outbox(harness) == ["media.ready → feed"])

            let poster = try await client.get("/v1/media/\(id)/poster", token: bob)
            #expect(poster.status == .ok)
            #expect(try TestMedia.size(ofJPEG: Data(poster.body.readableBytesView)) == (160, 120))
            let thumbnail = try await client.get("/v1/media/\(id)/thumbnail", token: bob)
            #expect(try TestMedia.size(ofJPEG: Data(thumbnail.body.readableBytesView)) == (300, 300))
            let shared = Data(try await client.get("/v1/media/\(id)/content", token: bob).body.readableBytesView)
            #expect(shared.count > 1000)
            #expect(shared.range(of: Data("+52.5200".utf8)) == nil)
            let sharedFile = harness.directory.url.appendingPathComponent("shared.mp4")
            try shared.write(to: sharedFile)
            #expect(try ISOBMFF.videoInfo(of: sharedFile).duration == 15)
            let own = Data(try await client.get("/v1/media/\(id)/content", token: alice).body.readableBytesView)
            #expect(own == video)

            // Running it again changes nothing and tells no one twice.
            let again = try #require(try await processor.process(id: id))
            #expect(again.processedAt == first.processedAt)
            #expect(again.posterSha256 == first.posterSha256 && again.displaySha256 == first.displaySha256)
            #expect(try outbox(harness) == ["media.ready → feed"])
            // A reference made later hears at once.
            try await TestMedia.attach(id, owner: Self.alice, source: .feed, store: processor.store)
            #expect(try outbox(harness) == ["media.ready → feed", "media.ready → feed"])
        }
    }

    @Test func aQuickTimeClipStaysQuickTimeWithoutItsLocation() async throws {
        _ = try #require(TestMedia.ffmpeg, "scripts/setup installs ffmpeg")
        try await TestMedia.withParts { harness, processor, client in
            let alice = try await harness.token(for: Self.alice)
            let clip = try await TestVideos.encoded(seconds: 3, container: "mov")
            #expect(clip.range(of: Data("+52.5200".utf8)) != nil)
            let answer = try await tusUpload(client, clip, purpose: "post", token: alice)
            let id = try #require(answer.headers[HTTPField.Name("pinhole-media-id")!])
            let ready = try #require(try await processor.process(id: id))
            #expect(ready.status == .ready)
            #expect(ready.contentType == "video/quicktime" && ready.displayType == "video/quicktime")
            try await TestMedia.attach(id, owner: Self.alice, store: processor.store)
            let bob = try await harness.token(for: Self.bob)
            let shared = Data(try await client.get("/v1/media/\(id)/content", token: bob).body.readableBytesView)
            #expect(shared.count > 1000)
            #expect(shared.range(of: Data("+52.5200".utf8)) == nil)
            #expect(shared.range(of: Data("ftypqt  ".utf8)) != nil)
        }
    }

    @Test func aVideoThatCannotBeDecodedIsRejectedItsBytesGoAndReferencesHear() async throws {
        _ = try #require(TestMedia.ffmpeg, "scripts/setup installs ffmpeg")
        try await TestMedia.withParts { harness, processor, client in
            let alice = try await harness.token(for: Self.alice)
            // A well-formed container around bytes that are not video.
            let fake = TestVideos.mp4(duration: 15, payload: 8192, seed: 11)
            let answer = try await tusUpload(client, fake, purpose: "post", token: alice)
            #expect(answer.status == .created)
            let uploadPath = try #require(answer.headers[.location])
            let id = try #require(answer.headers[HTTPField.Name("pinhole-media-id")!])
            let stored = try #require(try await processor.store.media(id: id))
            #expect(blobExists(harness, stored.sha256))
            try await TestMedia.attach(id, owner: Self.alice, source: .feed, store: processor.store)

            let rejected = try #require(try await processor.process(id: id))
            #expect(rejected.status == .rejected)
            #expect(rejected.rejectedReason?.contains("cannot be decoded") == true)
            #expect(!blobExists(harness, stored.sha256))
            #expect(try outbox(harness) == ["media.rejected → feed"])
            let media = try await client.get("/v1/media/\(id)", token: alice).json(MediaObject.self)
            #expect(media.status == .rejected)
            #expect(media.rejectedReason == rejected.rejectedReason)
            #expect(try await client.get("/v1/media/\(id)/content", token: alice).status == .notFound)
            let upload = try await client.get(uploadPath, token: alice).json(UploadStatus.self)
            #expect(upload.state == .rejected)
            #expect(upload.rejectedReason == rejected.rejectedReason)
            // Only `processing → ready | rejected`: nothing moves it on.
            #expect(try await processor.process(id: id)?.status == .rejected)
            #expect(try outbox(harness).count == 1)
        }
    }

    @Test func withoutFFmpegAVideoIsReadyAtOnceWithoutPoster() async throws {
        try await TestMedia.withParts(["media.ffmpeg": "off"]) { harness, processor, client in
            let alice = try await harness.token(for: Self.alice)
            let answer = try await tusUpload(
                client, TestVideos.mp4(duration: 15, seed: 12), purpose: "post", token: alice)
            let id = try #require(answer.headers[HTTPField.Name("pinhole-media-id")!])
            let media = try await client.get("/v1/media/\(id)", token: alice).json(MediaObject.self)
            #expect(media.status == .ready)
            #expect(media.posterUrl == nil && media.thumbnailUrl == nil)
            #expect(try await processor.store.mediaInProcessing().isEmpty)
        }
        #expect(FFmpeg.locate("off") == nil)
        #expect(FFmpeg.locate("/nonexistent/ffmpeg") == nil)
        #expect(FFmpeg.locate("ffmpeg", path: "/nonexistent") == nil)
    }

    @Test func orphanedBlobsAreCollectedOnceOldEnough() async throws {
        try await TestMedia.withParts { harness, processor, client in
            let token = try await harness.token(for: Self.alice)
            let media = try await client.execute(
                uri: "/v1/media", method: .post,
                headers: [.authorization: "Bearer \(token)", .contentType: "image/png"],
                body: ByteBuffer(bytes: TestImages.png(seed: 5))
            ).json(MediaObject.self)
            let record = try #require(try await processor.store.media(id: media.id))
            #expect(record.blobHashes.count == 3)

            // Bytes stored, then a crash before any row used them.
            let scratch = processor.blobs.scratchFile()
            try Data("left behind".utf8).write(to: scratch)
            let orphan = try await processor.blobs.storeHashing(scratch).sha256
            #expect(blobExists(harness, orphan))

            let collector = BlobCollector(
                store: processor.store, blobs: processor.blobs, clock: harness.clock, grace: 3600,
                interval: .seconds(3600), logger: harness.runtime.logger)
            #expect(await collector.collect().isEmpty, "nothing is collected within the grace period")
            harness.clock.advance(by: 7200)
            #expect(await collector.collect() == [orphan])
            #expect(!blobExists(harness, orphan))
            for hash in record.blobHashes { #expect(blobExists(harness, hash)) }
        }
    }
}
