import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import ServiceHTTP
import TestSupport
import Testing

@testable import MediaService

/// Videos are read from their container (ISO-BMFF): duration, dimensions, codecs; challenge
/// clips must last 15 s within the configured tolerance; broken files are refused.
@Suite struct VideoInspectionTests {
    func inspect(_ data: Data) throws -> VideoInfo {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("video-\(UUID().uuidString).mp4")
        try data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try ISOBMFF.videoInfo(of: file)
    }

    @Test func theContainerTellsDurationDimensionsAndCodecs() throws {
        let info = try inspect(TestVideos.mp4(duration: 15.2, width: 720, height: 1280, codec: "hvc1"))
        #expect(abs(info.duration - 15.2) < 0.002)
        #expect(info.width == 720 && info.height == 1280)
        #expect(info.videoCodec == "hvc1")
        #expect(info.audioCodec == "mp4a")
        // A large file reads the same way (its `mdat` is walked over, not read).
        #expect(try inspect(TestVideos.mp4(duration: 15, payload: 24 << 20, seed: 7)).duration == 15)
        // QuickTime reads the same way.
        let quicktime = try inspect(TestVideos.mp4(duration: 3, brand: "qt  "))
        #expect(quicktime.duration == 3)
    }

    @Test(arguments: [("cut inside moov", 200), ("only ftyp", 32), ("cut inside mdat", -100)])
    func brokenFilesAreRefused(name: String, keep: Int) throws {
        let video = TestVideos.mp4(duration: 15)
        let broken = keep > 0 ? video.prefix(keep) : video.dropLast(-keep)
        #expect(throws: ISOBMFF.Malformed.self, "\(name)") { try inspect(Data(broken)) }
    }

    @Test func challengeClipsMustLastFifteenSecondsAndBeVideos() async throws {
        let harness = try ServiceHarness(.media)
        let parts = try await MediaService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in
            let token = try await harness.token(for: "00000000-0000-4000-8000-00000000000a")
            func upload(_ data: Data, purpose: String, filetype: String = "video/mp4") async throws -> TestResponse {
                let metadata = [
                    "purpose \(Data(purpose.utf8).base64EncodedString())",
                    "filetype \(Data(filetype.utf8).base64EncodedString())",
                ].joined(separator: ",")
                return try await client.execute(
                    uri: "/v1/uploads", method: .post,
                    headers: [
                        .authorization: "Bearer \(token)", HTTPField.Name("tus-resumable")!: "1.0.0",
                        HTTPField.Name("upload-length")!: String(data.count),
                        HTTPField.Name("upload-metadata")!: metadata, .contentType: "application/offset+octet-stream",
                    ], body: ByteBuffer(bytes: data))
            }
            let good = try await upload(TestVideos.mp4(duration: 15.3), purpose: "challenge_clip")
            #expect(good.status == .created)
            let mediaID = try #require(good.headers[HTTPField.Name("pinhole-media-id")!])
            let media = try await client.get("/v1/media/\(mediaID)", token: token).json(MediaObject.self)
            #expect(media.contentType == "video/mp4")
            #expect(media.durationMs == 15_300)
            #expect(media.width == 1080 && media.height == 1920)
            #expect(media.videoCodec == "avc1")

            let long = try await upload(TestVideos.mp4(duration: 16, seed: 2), purpose: "challenge_clip")
            #expect(long.status == .badRequest)
            #expect(long.error?.message.contains("16.00 s") == true)
            let short = try await upload(TestVideos.mp4(duration: 14.4, seed: 3), purpose: "challenge_clip")
            #expect(short.status == .badRequest)
            let truncated = try await upload(Data(TestVideos.mp4(duration: 15, seed: 4).prefix(300)), purpose: "post")
            #expect(truncated.status == .unsupportedMediaType)
            let photo = try await upload(TestImages.jpeg(seed: 9), purpose: "challenge_clip", filetype: "image/jpeg")
            #expect(photo.status == .unsupportedMediaType)
            // A post may be any length.
            #expect(try await upload(TestVideos.mp4(duration: 42, seed: 5), purpose: "post").status == .created)
        }
    }
}
