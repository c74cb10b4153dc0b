import Configuration
import Foundation
import ServiceKit

/// Media's own settings.
///
/// Keys:
/// - `media.blobDir` (default `<data.dir>/media/blobs`): where the bytes live, named by their
///   SHA-256.
/// - `media.maxPhotoBytes` (default 10485760): the largest photo (single-request or tus).
/// - `media.maxVideoBytes` (default 104857600): the largest video (tus).
/// - `media.uploadTtlHours` (default 24): how long a resumable upload may take; then it
///   expires and its bytes are reclaimed.
/// - `media.quota.uploadsPerHour` (default 20, SkateHubba's): resumable uploads a user may
///   start per hour.
/// - `media.clip.minSeconds`, `media.clip.maxSeconds` (default 14.5 and 15.5, SkateHubba's):
///   how long a challenge clip may be.
/// - `media.presign.uploadSeconds` (default 3600), `media.presign.downloadSeconds` (default
///   86400, Unum's): how long presigned PUT and GET URLs work.
/// - `media.presignKeyFile` (default `<data.dir>/media/presign-key`): the 32-byte HMAC key that
///   signs presigned URLs; made at first start (0600). Replacing it voids every URL given out.
/// - `media.quota.inFlightBytes` (default 524288000): bytes a user may have declared and not
///   yet sent across unfinished uploads.
struct MediaSettings: Sendable {
    let blobDirectory: URL
    let maxPhotoBytes: Int
    let maxVideoBytes: Int
    let uploadTTL: TimeInterval
    let uploadsPerHour: Int
    let inFlightBytes: Int
    let clipDuration: ClosedRange<Double>
    let presignUploadSeconds: Int
    let presignDownloadSeconds: Int
    let presignKeyFile: URL

    init(reader: ConfigReader, shared: ServiceSettings) throws {
        let defaultDirectory = shared.dataDirectory.appendingPathComponent("media/blobs", isDirectory: true)
        self.blobDirectory = URL(
            fileURLWithPath: reader.string(forKey: "media.blobDir", default: defaultDirectory.path), isDirectory: true)
        self.maxPhotoBytes = try reader.integer("media.maxPhotoBytes", default: 10 << 20, in: 1024...(1 << 30))
        self.maxVideoBytes = try reader.integer("media.maxVideoBytes", default: 100 << 20, in: 1024...(1 << 40))
        self.uploadTTL = TimeInterval(try reader.integer("media.uploadTtlHours", default: 24, in: 1...720)) * 3600
        self.uploadsPerHour = try reader.integer("media.quota.uploadsPerHour", default: 20, in: 1...100_000)
        let clipMin = try reader.decimal("media.clip.minSeconds", default: 14.5, in: 0.1...3600)
        let clipMax = try reader.decimal("media.clip.maxSeconds", default: 15.5, in: 0.1...3600)
        guard clipMax >= clipMin else {
            throw ConfigurationError("media.clip.minSeconds must be at most media.clip.maxSeconds")
        }
        self.clipDuration = clipMin...clipMax
        self.presignUploadSeconds = try reader.integer("media.presign.uploadSeconds", default: 3600, in: 60...604_800)
        self.presignDownloadSeconds = try reader.integer(
            "media.presign.downloadSeconds", default: 86_400, in: 60...604_800)
        self.presignKeyFile = URL(
            fileURLWithPath: reader.string(
                forKey: "media.presignKeyFile",
                default: shared.dataDirectory.appendingPathComponent("media/presign-key").path))
        self.inFlightBytes = try reader.integer("media.quota.inFlightBytes", default: 500 << 20, in: 1024...(1 << 42))
    }
}
