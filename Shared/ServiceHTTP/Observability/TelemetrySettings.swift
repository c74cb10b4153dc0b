import Configuration
import Foundation

/// Where traces and metrics go over OTLP, when an operator says so (off by default).
///
/// Keys (flag `--a-b`, variable `A_B`):
/// - `otel.endpoint` (default none: no export): the OTLP/HTTP collector's base URL, e.g.
///   `http://127.0.0.1:4318` (`/v1/traces` and `/v1/metrics` are added).
/// - `otel.protocol` (`http/protobuf` or `http/json`, default `http/protobuf`).
/// - `otel.exportIntervalSeconds` (default 5): how often finished spans and metrics are sent.
public struct TelemetrySettings: Sendable {
    public enum WireProtocol: String, Sendable {
        case protobuf = "http/protobuf"
        case json = "http/json"
    }

    public let endpoint: URL?
    public let wireProtocol: WireProtocol
    public let exportInterval: Duration

    public init(reader: ConfigReader) throws {
        if let text = reader.string(forKey: "otel.endpoint"), !text.isEmpty {
            guard let url = URL(string: text), ["http", "https"].contains(url.scheme), url.host != nil else {
                throw ConfigurationError("otel.endpoint must be an http(s) URL, got \(text)")
            }
            self.endpoint = url
        } else {
            self.endpoint = nil
        }
        let wire = reader.string(forKey: "otel.protocol", default: WireProtocol.protobuf.rawValue)
        guard let wireProtocol = WireProtocol(rawValue: wire) else {
            throw ConfigurationError("otel.protocol must be http/protobuf or http/json, got \(wire)")
        }
        self.wireProtocol = wireProtocol
        self.exportInterval = .seconds(try reader.integer("otel.exportIntervalSeconds", default: 5, in: 1...300))
    }
}
