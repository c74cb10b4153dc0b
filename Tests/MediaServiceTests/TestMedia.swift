import CVips
import Contracts
import Foundation
import GRDB
import HummingbirdTesting
import ServiceHTTP
import ServiceStore
import TestSupport
import Testing

@testable import MediaService

/// Media for processing tests that only a codec can make: HEIC through libvips' encoder,
/// real H.264 videos through ffmpeg.
enum TestMedia {
    /// Media's router in process, with a harness for tokens and configuration.
    static func withRouter(
        _ config: [String: String] = [:],
        _ body: @escaping @Sendable (ServiceHarness, any TestClientProtocol) async throws -> Void
    ) async throws {
        let harness = try ServiceHarness(.media, config: config)
        let parts = try await MediaService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        try await harness.test(parts) { client in try await body(harness, client) }
    }

    /// The same, with the router's media processor (and through it the store).
    static func withParts(
        _ config: [String: String] = [:],
        _ body: @escaping @Sendable (ServiceHarness, MediaProcessor, any TestClientProtocol) async throws -> Void
    ) async throws {
        let harness = try ServiceHarness(.media, config: config)
        let parts = try await MediaService.buildRouter(runtime: harness.runtime, reader: harness.reader)
        let processor = try processor(parts)
        try await harness.test(parts) { client in try await body(harness, processor, client) }
    }

    /// A real 64×48 HEIC photo, encoded by libvips (libheif) from the test JPEG.
    static func heic() throws -> Data { try encoded(TestImages.jpeg(), with: "heifsave") }

    /// A real 64×48 WebP photo, encoded by libvips from the test JPEG.
    static func webp() throws -> Data { try encoded(TestImages.jpeg(seed: 40), with: "webpsave") }

    /// `jpeg` re-encoded by the libvips saver `saver`.
    static func encoded(_ jpeg: Data, with saver: String) throws -> Data {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.jpg")
        try jpeg.write(to: input)
        let image = try Vips.load(input, contentType: "image/jpeg")
        let output = directory.appendingPathComponent("out")
        try Vips.save(saver, ["in": .image(image), "filename": .string(output.path)])
        return try Data(contentsOf: output)
    }

    /// ffmpeg, when this machine has it (scripts/setup installs it).
    static let ffmpeg = FFmpeg.locate("ffmpeg")

    /// A real video (see ``TestVideos/encoded(seconds:)``).
    static func video(seconds: Double = 15) async throws -> Data {
        _ = try #require(Self.ffmpeg, "scripts/setup installs ffmpeg")
        return try await TestVideos.encoded(seconds: seconds)
    }

    /// The processor (and through it the store) of a built media router.
    static func processor(_ parts: ServiceParts<ServiceRequestContext>) throws -> MediaProcessor {
        try #require(parts.services.compactMap { $0 as? MediaProcessingWorker }.first).processor
    }

    /// What the inbox does with `media.attached` from `source`.
    static func attach(
        _ mediaID: String, owner: String, source: ServiceName = .feed, visibility: MediaVisibility = .public,
        readers: [String]? = nil, store: MediaStore
    ) async throws {
        let envelope = EventEnvelope(
            id: UUID(), type: MediaAttached.eventType, source: source, occurredAt: Date(),
            payload: MediaAttached(
                mediaId: mediaID, ownerId: owner, visibility: visibility, referenceType: "post",
                referenceId: UUID().uuidString.lowercased(), readers: readers))
        try await store.database.write { db in try store.attach(envelope, in: db) }
    }

    /// What the inbox does with `media.sharing_ended` from `source`.
    static func endSharing(between users: [String], source: ServiceName, store: MediaStore) async throws {
        let envelope = EventEnvelope(
            id: UUID(), type: MediaSharingEnded.eventType, source: source, occurredAt: Date(),
            payload: MediaSharingEnded(userIds: users))
        try await store.database.write { db in try MediaStore.endSharing(envelope, in: db) }
    }

    /// Whether libvips finds EXIF in an image.
    static func hasEXIF(_ bytes: Data) throws -> Bool {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let image = try Vips.load(file, contentType: "image/jpeg")
        return vips_image_get_typeof(image.pointer, "exif-data") != 0
    }

    /// The width and height libvips reads from a JPEG.
    static func size(ofJPEG bytes: Data) throws -> (Int, Int) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let image = try Vips.load(file, contentType: "image/jpeg")
        return (image.width, image.height)
    }
}
