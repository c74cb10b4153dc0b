import AsyncHTTPClient
import Configuration
import Foundation
import NIOCore
import ServiceHTTP

/// Media's own settings.
///
/// Keys:
/// - `media.blobDir` (default `<data.dir>/media/blobs`): where the bytes live, named by their
///   SHA-256.
/// - `media.maxPhotoBytes` (default 10485760): the largest photo (single-request or tus).
/// - `media.maxVideoBytes` (default 104857600): the largest video (tus).
/// - `media.uploadTtlHours` (default 24): how long a resumable upload may take; then it
///   expires and its bytes are reclaimed.
/// - `media.quota.uploadsPerHour` (default 20): resumable uploads a user may
///   start per hour.
/// - `media.clip.minSeconds`, `media.clip.maxSeconds` (default 14.5 and 15.5):
///   how long a challenge clip may be.
/// - `media.presign.uploadSeconds` (default 3600), `media.presign.downloadSeconds` (default
///   86400): how long presigned PUT and GET URLs work.
/// - `media.presign.readerSeconds` (default 3600): at most how long a GET URL works when it
///   is given to someone other than the owner of a private object (a snap's streak partner),
///   so that an unfriending or a block ends their access within it.
/// - `media.presignKeyFile` (default `<data.dir>/media/presign-key`): the 32-byte HMAC key that
///   signs presigned URLs; made at first start (0600). Replacing it voids every URL given out.
/// - `media.viewKeysDir` (default `<data.dir>/media/view-keys`): the keys media views' URLs are
///   signed with, one file each (0600), made and retired by media itself.
/// - `media.viewKeyRotationHours` (default 24): how old the newest view key gets before media
///   makes the next (1–720); the one before is kept three hours more.
/// - `media.quota.inFlightBytes` (default 524288000): bytes a user may have declared and not
///   yet sent across unfinished uploads.
/// - `media.maxPixels` (default 50000000): the most pixels an image may have (read from its
///   header before anything is decoded); a 48 MP phone photo fits.
/// - `media.ffmpeg` (default `ffmpeg`, looked up on `PATH`): a path or name, or `off`. With it,
///   videos get a poster frame and a copy without metadata; without it, neither.
/// - `media.gc.graceMinutes` (default 60), `media.gc.intervalMinutes` (default 60): blobs no
///   row uses are deleted once older than the grace, checked every interval.
/// - `media.screening.classifier` (default `rules`): what scores every new photo and video:
///   `rules` (the SHA-256 list of `media.screening.blocklistFile`, none by default) or `http`
///   (`media.screening.url`, see ``HTTPClassifier``; `media.screening.timeoutSeconds`, default 10).
///   A score at or above `media.screening.holdThreshold` (default 0.8) holds the media for a
///   moderator instead of publishing it.
/// - `media.storage` (default `local`): `local` (files under `media.blobDir`) or `s3`:
///   - `media.s3.endpoint` (e.g. `https://s3.eu-west-1.amazonaws.com`), `media.s3.bucket`,
///     `media.s3.region` (default `us-east-1`), `media.s3.accessKeyId`,
///     `media.s3.secretAccessKey` (secret; both required), `media.s3.addressing` (`virtual`,
///     the default, or `path` for MinIO and most self-hosted stores), `media.s3.prefix`
///     (default none: put before every key).
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
    let presignReaderSeconds: Int
    let presignKeyFile: URL
    let viewKeysDirectory: URL
    let viewKeyRotation: TimeInterval
    let maxPixels: Int
    let ffmpeg: String
    let gcGrace: TimeInterval
    let gcInterval: Duration
    let s3: S3Settings?
    /// `replication.url`: with local blobs, new ones are copied there too.
    let replication: ReplicationSettings?
    let screening: ScreeningSettings

    struct ScreeningSettings: Sendable {
        enum Classifier: Sendable {
            case rules(blocklist: URL?)
            case http(url: String, timeoutSeconds: Int)
        }

        let classifier: Classifier
        let holdThreshold: Double

        /// The screening these settings name.
        func make(logger: Logger) throws -> Screening {
            switch classifier {
            case .rules(let file):
                return Screening(
                    classifier: try file.map(RuleClassifier.init(file:)) ?? RuleClassifier(),
                    holdThreshold: holdThreshold)
            case .http(let url, let seconds):
                return Screening(
                    classifier: HTTPClassifier(
                        url: url, timeout: .seconds(Int64(seconds)), client: .shared, logger: logger),
                    holdThreshold: holdThreshold)
            }
        }

        init(reader: ConfigReader) throws {
            self.holdThreshold = try reader.decimal("media.screening.holdThreshold", default: 0.8, in: 0...1)
            switch reader.string(forKey: "media.screening.classifier", default: "rules") {
            case "rules":
                let file = reader.string(forKey: "media.screening.blocklistFile")
                self.classifier = .rules(blocklist: file.map { URL(fileURLWithPath: $0) })
            case "http":
                guard let url = reader.string(forKey: "media.screening.url"), url.hasPrefix("http") else {
                    throw ConfigurationError(
                        "media.screening.classifier http needs media.screening.url (http or https)")
                }
                self.classifier = .http(
                    url: url,
                    timeoutSeconds: try reader.integer("media.screening.timeoutSeconds", default: 10, in: 1...120))
            case let other:
                throw ConfigurationError("media.screening.classifier must be rules or http, not \(other)")
            }
        }
    }

    struct S3Settings: Sendable {
        let location: S3BlobBackend.Location
        let accessKeyID: String
        let secretAccessKey: String
        let region: String
    }

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
        self.presignReaderSeconds = try reader.integer("media.presign.readerSeconds", default: 3600, in: 60...604_800)
        self.presignKeyFile = URL(
            fileURLWithPath: reader.string(
                forKey: "media.presignKeyFile",
                default: shared.dataDirectory.appendingPathComponent("media/presign-key").path))
        self.viewKeysDirectory = URL(
            fileURLWithPath: reader.string(
                forKey: "media.viewKeysDir",
                default: shared.dataDirectory.appendingPathComponent("media/view-keys").path),
            isDirectory: true)
        self.viewKeyRotation = TimeInterval(
            try reader.integer("media.viewKeyRotationHours", default: 24, in: 1...720) * 3600)
        self.inFlightBytes = try reader.integer("media.quota.inFlightBytes", default: 500 << 20, in: 1024...(1 << 42))
        self.maxPixels = try reader.integer("media.maxPixels", default: 50_000_000, in: 1...1_000_000_000)
        self.ffmpeg = reader.string(forKey: "media.ffmpeg", default: "ffmpeg")
        self.gcGrace = TimeInterval(try reader.integer("media.gc.graceMinutes", default: 60, in: 1...100_000) * 60)
        self.gcInterval = .seconds(try reader.integer("media.gc.intervalMinutes", default: 60, in: 1...100_000) * 60)
        self.screening = try ScreeningSettings(reader: reader)
        switch reader.string(forKey: "media.storage", default: "local") {
        case "local": self.s3 = nil
        case "s3": self.s3 = try Self.s3(reader)
        case let other: throw ConfigurationError("media.storage must be local or s3, not \(other)")
        }
        self.replication = try ReplicationSettings.read(reader)
    }

    static func s3(_ reader: ConfigReader) throws -> S3Settings {
        guard let endpointText = reader.string(forKey: "media.s3.endpoint"),
            let endpoint = URLComponents(string: endpointText), let scheme = endpoint.scheme,
            ["http", "https"].contains(scheme), let host = endpoint.host, !host.isEmpty
        else { throw ConfigurationError("media.s3.endpoint must be an http(s) URL") }
        guard let bucket = reader.string(forKey: "media.s3.bucket"), !bucket.isEmpty,
            bucket.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "-" || $0 == "." })
        else { throw ConfigurationError("media.s3.bucket must be a bucket name") }
        guard let keyID = reader.string(forKey: "media.s3.accessKeyId"),
            let secret = reader.string(forKey: "media.s3.secretAccessKey", isSecret: true)
        else { throw ConfigurationError("media.storage=s3 needs media.s3.accessKeyId and media.s3.secretAccessKey") }
        guard
            let addressing = S3BlobBackend.Addressing(
                rawValue: reader.string(forKey: "media.s3.addressing", default: "virtual"))
        else { throw ConfigurationError("media.s3.addressing must be virtual or path") }
        let location = S3BlobBackend.Location(
            scheme: scheme, host: host, port: endpoint.port, bucket: bucket, addressing: addressing,
            prefix: reader.string(forKey: "media.s3.prefix", default: ""))
        return S3Settings(
            location: location, accessKeyID: keyID, secretAccessKey: secret,
            region: reader.string(forKey: "media.s3.region", default: "us-east-1"))
    }
}
