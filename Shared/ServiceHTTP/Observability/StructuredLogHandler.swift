import Foundation
import Logging

/// One log line per event, as text for people or JSON for collectors, carrying the request id
/// and every other metadata value. Bootstrapped by each executable's `App.swift`.
public struct StructuredLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    let label: String
    let format: LogFormat

    /// A handler for `label` at `level`.
    public init(label: String, level: Logger.Level, format: LogFormat) {
        self.label = label
        self.logLevel = level
        self.format = format
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let extra = event.metadata {
            merged.merge(extra) { _, new in new }
        }
        // Hummingbird's own id duplicates `request_id`; keep lines short.
        merged.removeValue(forKey: "hb.request.id")
        let timestamp = Date().formatted(.iso8601WithFractionalSeconds)
        let line: String
        switch format {
        case .text:
            let fields = merged.sorted { $0.key < $1.key }.map { "\($0.key)=\(Self.quoted($0.value.description))" }
            line = ([timestamp, event.level.rawValue, "\(label):", event.message.description] + fields)
                .joined(separator: " ")
        case .json:
            var object: [String: String] = [:]
            for (key, value) in merged { object[key] = value.description }
            object["ts"] = timestamp
            object["level"] = event.level.rawValue
            object["logger"] = label
            object["msg"] = event.message.description
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            line = String(decoding: data, as: UTF8.self)
        }
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    private static func quoted(_ value: String) -> String {
        if value.isEmpty || value.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" || $0.isNewline }) {
            let escaped = value.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"")
                .replacingOccurrences(of: "\n", with: "\\n")
            return "\"\(escaped)\""
        }
        return value
    }
}
