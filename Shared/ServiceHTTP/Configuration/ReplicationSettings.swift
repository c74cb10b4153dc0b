import Configuration
import Foundation

/// Continuous replication (`replication.url`): where Litestream ships every service database
/// and the data directory's files, and where media copies new local blobs.
///
/// - `file:///path`: a directory, ideally on another disk or a network mount;
/// - `s3://bucket/prefix`: an S3-compatible bucket, reached with the endpoint, region,
///   credentials and addressing of `media.s3.*` (the settings the media store already has).
///
/// Each database goes under `<prefix>/<service>`, the files database under `<prefix>/files`,
/// blobs under `<prefix>/blobs/`.
public struct ReplicationSettings: Sendable, Equatable {
    public enum Target: Sendable, Equatable {
        case directory(URL)
        /// `prefix` has no leading or trailing slash; it may be empty.
        case s3(bucket: String, prefix: String)
    }

    /// How to reach an S3-compatible store.
    public struct S3Access: Sendable, Equatable {
        public var scheme: String
        public var host: String
        public var port: Int?
        public var region: String
        public var accessKeyID: String
        public var secretAccessKey: String
        /// Path-style addressing (`host/bucket/key`), as most self-hosted stores want.
        public var pathStyle: Bool

        /// `http://127.0.0.1:9000`.
        public var endpoint: String { "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")" }
    }

    /// As configured, for messages (it carries no credentials).
    public let url: String
    public let target: Target
    /// With an `s3://` target.
    public let s3: S3Access?
    /// How often Litestream looks for new commits and ships them (`replication.intervalMs`).
    public let interval: Duration
    /// How long the replica keeps what a restore `--at` a past moment needs.
    public let retentionHours: Int
    /// The Litestream executable (`replication.litestream`): a path, or nil for `litestream`
    /// on `PATH`.
    public let litestream: String?
    /// Where Litestream serves its Prometheus metrics (`replication.metricsAddress`).
    public let metricsAddress: String
    /// How `pinhole replicate` has Litestream scheduled (`replication.priority`: `yield`, the
    /// default, `normal` or `idle`).
    public let priority: ChildProcess.Priority

    /// The configured replication, or nil when `replication.url` is not set.
    public static func read(_ reader: ConfigReader) throws -> ReplicationSettings? {
        guard let url = reader.string(forKey: "replication.url"), !url.isEmpty else { return nil }
        return try ReplicationSettings(url: url, reader: reader)
    }

    /// Replication to (or a restore from) `url`, with the rest of the settings from `reader`.
    public init(url: String, reader: ConfigReader) throws {
        guard let components = URLComponents(string: url), let scheme = components.scheme else {
            throw ConfigurationError("replication.url must be file:///path or s3://bucket/prefix, got \(url)")
        }
        self.url = url
        switch scheme {
        case "file":
            guard components.host.map(\.isEmpty) ?? true, components.path.hasPrefix("/"), components.path.count > 1
            else {
                throw ConfigurationError("replication.url file:// needs an absolute path (file:///path), got \(url)")
            }
            target = .directory(URL(fileURLWithPath: components.path, isDirectory: true).standardizedFileURL)
            s3 = nil
        case "s3":
            guard let bucket = components.host, !bucket.isEmpty,
                bucket.allSatisfy({ $0.isLowercase || $0.isNumber || $0 == "-" || $0 == "." })
            else {
                throw ConfigurationError("replication.url s3:// needs a bucket name (s3://bucket/prefix), got \(url)")
            }
            let prefix = components.path.split(separator: "/").joined(separator: "/")
            target = .s3(bucket: bucket, prefix: prefix)
            s3 = try Self.s3Access(reader)
        default:
            throw ConfigurationError("replication.url must be file:///path or s3://bucket/prefix, got \(url)")
        }
        interval = .milliseconds(try reader.integer("replication.intervalMs", default: 250, in: 50...60_000))
        retentionHours = try reader.integer("replication.retentionHours", default: 72, in: 1...8760)
        litestream = reader.string(forKey: "replication.litestream")
        metricsAddress = reader.string(forKey: "replication.metricsAddress", default: "127.0.0.1:9091")
        let priorities: [String: ChildProcess.Priority] = ["yield": .yielding, "normal": .normal, "idle": .idle]
        let name = reader.string(forKey: "replication.priority", default: "yield")
        guard let priority = priorities[name] else {
            throw ConfigurationError("replication.priority must be yield, normal or idle, got \(name)")
        }
        self.priority = priority
    }

    /// The endpoint, region, credentials and addressing `media.s3.*` names.
    static func s3Access(_ reader: ConfigReader) throws -> S3Access {
        guard let endpointText = reader.string(forKey: "media.s3.endpoint"),
            let endpoint = URLComponents(string: endpointText), let scheme = endpoint.scheme,
            ["http", "https"].contains(scheme), let host = endpoint.host, !host.isEmpty
        else { throw ConfigurationError("replication to s3:// needs media.s3.endpoint, an http(s) URL") }
        guard let keyID = reader.string(forKey: "media.s3.accessKeyId"),
            let secret = reader.string(forKey: "media.s3.secretAccessKey", isSecret: true)
        else {
            throw ConfigurationError("replication to s3:// needs media.s3.accessKeyId and media.s3.secretAccessKey")
        }
        let addressing = reader.string(forKey: "media.s3.addressing", default: "virtual")
        guard ["virtual", "path"].contains(addressing) else {
            throw ConfigurationError("media.s3.addressing must be virtual or path")
        }
        return S3Access(
            scheme: scheme, host: host, port: endpoint.port,
            region: reader.string(forKey: "media.s3.region", default: "us-east-1"), accessKeyID: keyID,
            secretAccessKey: secret, pathStyle: addressing == "path")
    }

    /// Where one replicated item lives: a database (`auth`), `files`, or `blobs`: a directory
    /// for `file://`, the key prefix (no trailing slash) for `s3://`.
    public func location(of item: String) -> String {
        switch target {
        case .directory(let directory): directory.appendingPathComponent(item, isDirectory: true).path
        case .s3(_, let prefix): prefix.isEmpty ? item : "\(prefix)/\(item)"
        }
    }
}
