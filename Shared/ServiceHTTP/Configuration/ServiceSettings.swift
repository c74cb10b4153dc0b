import Configuration
import Contracts
import Foundation
import Logging
import NIOCore

/// The settings every executable shares, read once at boot.
///
/// Keys (flag `--a-b`, variable `A_B`):
/// - `http.host` (default `127.0.0.1`): address to listen on.
/// - `http.port` (default per executable: gateway 8080, auth 8101, media 8102, feed 8103,
///   streak 8104, alerts 8105, moderation 8106): port to listen on; `0` picks a free one.
/// - `http.eventLoops` (default 0: one per core): the event loops (threads) of the process's
///   network I/O, read once at start (``eventLoops(_:)``).
/// - `data.dir` (default `.pinhole`): the data directory (databases, blobs, keys, certificates).
/// - `tls.ca`, `tls.certificate`, `tls.key` (default `<data.dir>/pki/ca.crt`,
///   `<data.dir>/pki/<name>.crt`, `<data.dir>/pki/<name>.key`): the local authority and this
///   executable's certificate for mutual TLS.
/// - `services.<name>.url` (default `https://127.0.0.1:<port>`): where each service listens.
/// - `token.issuer` (default `pinhole`), `token.audience` (default `pinhole-api`): the `iss`
///   and `aud` access tokens carry.
/// - `token.cacheSize` (default 10000): verified tokens remembered until they expire; 0 turns
///   the cache off.
/// - `token.sessionCheckSeconds` (default 5): how long a service trusts auth's answer that a
///   session is live (a logout or role change takes effect within this time).
/// - `client.connectTimeoutMs` (default 1000), `client.requestTimeoutSeconds` (default 30),
///   `client.maxResponseBytes` (default 4194304): internal HTTP client limits.
/// - `accounts.requireVerifiedEmail` (default false): only accounts with a proven email
///   address may post and challenge (feed), ask for friends (streak) and send messages
///   (alerts); others get 403 `EMAIL_VERIFICATION_REQUIRED`.
/// - `outbox.maxBackoffSeconds` (default 60): the longest wait between two delivery attempts
///   of an event to a subscriber that is down.
/// - `log.level` (default `info`), `log.format` (`text` or `json`, default `text`).
public struct ServiceSettings: Sendable {
    /// Which executable this is.
    public let name: ServiceName
    /// Listen address.
    public let host: String
    /// Listen port.
    public let port: Int
    /// Root of everything this executable writes.
    public let dataDirectory: URL
    /// Certificate files for mutual TLS.
    public let pki: PKIPaths
    /// Where each service listens.
    public let serviceURLs: [ServiceName: URL]
    /// Expected token issuer.
    public let tokenIssuer: String
    /// Expected token audience.
    public let tokenAudience: String
    /// How many verified tokens to remember.
    public let tokenCacheSize: Int
    /// How long auth's answer about a session is trusted.
    public let sessionCheckInterval: TimeInterval
    /// Internal client limits.
    public let client: InternalClientSettings
    /// Longest wait between two delivery attempts of one event.
    public let outboxMaxBackoff: TimeInterval
    /// Whether posting, friend requests and messages wait for a proven email address.
    public let requireVerifiedEmail: Bool
    /// Minimum log level.
    public let logLevel: Logger.Level
    /// Log line format.
    public let logFormat: LogFormat

    /// `http.eventLoops`: how many event loops NIO's shared group gets, nil for its own one
    /// per core. Read by ``ServiceMain`` before anything makes that group.
    public static func eventLoops(_ reader: ConfigReader) throws -> Int? {
        let loops = try reader.integer("http.eventLoops", default: 0, in: 0...1024)
        return loops > 0 ? loops : nil
    }

    /// Reads the shared keys for executable `name`.
    public init(name: ServiceName, reader: ConfigReader) throws {
        self.name = name
        self.host = reader.string(forKey: "http.host", default: "127.0.0.1")
        self.port = try reader.integer("http.port", default: name.defaultPort, in: 0...65535)
        let dataDirectory = URL(
            fileURLWithPath: reader.string(forKey: "data.dir", default: ".pinhole"), isDirectory: true
        ).standardizedFileURL
        self.dataDirectory = dataDirectory
        let defaults = PKIPaths(dataDirectory: dataDirectory, name: name)
        self.pki = PKIPaths(
            authority: URL(fileURLWithPath: reader.string(forKey: "tls.ca", default: defaults.authority.path)),
            certificate: URL(
                fileURLWithPath: reader.string(forKey: "tls.certificate", default: defaults.certificate.path)),
            key: URL(fileURLWithPath: reader.string(forKey: "tls.key", default: defaults.key.path))
        )
        var urls: [ServiceName: URL] = [:]
        for service in ServiceName.services {
            let text = reader.string(
                forKey: ConfigKey("services.\(service.rawValue).url"),
                default: "https://127.0.0.1:\(service.defaultPort)")
            guard let url = URL(string: text), url.scheme == "https", url.host != nil else {
                throw ConfigurationError("services.\(service.rawValue).url must be an https URL, got \(text)")
            }
            urls[service] = url
        }
        self.serviceURLs = urls
        self.tokenIssuer = reader.string(forKey: "token.issuer", default: "pinhole")
        self.tokenAudience = reader.string(forKey: "token.audience", default: "pinhole-api")
        self.tokenCacheSize = try reader.integer("token.cacheSize", default: 10_000, in: 0...1_000_000)
        self.sessionCheckInterval = TimeInterval(
            try reader.integer("token.sessionCheckSeconds", default: 5, in: 0...300))
        self.client = InternalClientSettings(
            connectTimeout: .milliseconds(
                Int64(try reader.integer("client.connectTimeoutMs", default: 1000, in: 1...60_000))),
            requestTimeout: .seconds(
                Int64(try reader.integer("client.requestTimeoutSeconds", default: 30, in: 1...3600))),
            maxResponseBytes: try reader.integer("client.maxResponseBytes", default: 4 << 20, in: 1024...(1 << 30))
        )
        self.outboxMaxBackoff = TimeInterval(try reader.integer("outbox.maxBackoffSeconds", default: 60, in: 1...3600))
        self.requireVerifiedEmail = try reader.boolean("accounts.requireVerifiedEmail", default: false)
        let level = reader.string(forKey: "log.level", default: "info")
        guard let logLevel = Logger.Level(rawValue: level) else {
            throw ConfigurationError("log.level must be one of trace, debug, info, notice, warning, error, critical")
        }
        self.logLevel = logLevel
        let format = reader.string(forKey: "log.format", default: "text")
        guard let logFormat = LogFormat(rawValue: format) else {
            throw ConfigurationError("log.format must be text or json, got \(format)")
        }
        self.logFormat = logFormat
    }

    /// The directory this executable keeps its own files in (`<data.dir>/<name>`), created
    /// with owner-only permissions.
    public func ownDirectory() throws -> URL {
        let directory = dataDirectory.appendingPathComponent(name.rawValue, isDirectory: true)
        try FileSystem.makeOwnerOnlyDirectory(directory)
        return directory
    }

    /// The URL of a service.
    public func url(of service: ServiceName) -> URL {
        serviceURLs[service]!
    }
}

/// Where the mutual-TLS files of one executable live.
public struct PKIPaths: Sendable, Equatable {
    /// The local authority's certificate (PEM).
    public let authority: URL
    /// This executable's certificate (PEM).
    public let certificate: URL
    /// This executable's private key (PEM).
    public let key: URL

    /// Explicit paths.
    public init(authority: URL, certificate: URL, key: URL) {
        self.authority = authority
        self.certificate = certificate
        self.key = key
    }

    /// The default layout under `<data>/pki`.
    public init(dataDirectory: URL, name: ServiceName) {
        let pki = dataDirectory.appendingPathComponent("pki", isDirectory: true)
        self.init(
            authority: pki.appendingPathComponent("ca.crt"),
            certificate: pki.appendingPathComponent("\(name.rawValue).crt"),
            key: pki.appendingPathComponent("\(name.rawValue).key")
        )
    }
}

/// How log lines look.
public enum LogFormat: String, Sendable {
    /// `2026-11-21T10:00:00.000Z info auth: message key=value`, for people.
    case text
    /// One JSON object per line, for collectors.
    case json
}

/// A configuration value is missing or wrong; the executable refuses to start.
public struct ConfigurationError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
