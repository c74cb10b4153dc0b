import Foundation
import Testing

/// docs/CONFIGURATION.md lists exactly the keys the settings types read: a new setting needs its
/// row, and a row outlives no setting.
@Suite struct ConfigurationDocumentTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The files that read configuration keys: the kit's shared settings and replication's, telemetry, each
    /// service's settings and the gateway's (with its app links).
    static func settingsFiles() throws -> [URL] {
        let services = try FileManager.default.contentsOfDirectory(
            at: root.appendingPathComponent("Services"), includingPropertiesForKeys: nil)
        return [
            "Shared/ServiceHTTP/Configuration/ServiceSettings.swift",
            "Shared/ServiceHTTP/Configuration/ReplicationSettings.swift",
            "Shared/ServiceHTTP/Observability/TelemetrySettings.swift", "gateway/GatewaySettings.swift",
            "gateway/Domain/AppLinks.swift", "Services/Auth/Mail/MailSettings.swift",
        ].map { root.appendingPathComponent($0) }
            + services.map { $0.appendingPathComponent("\($0.lastPathComponent)Settings.swift") }
    }

    /// The keys a settings file reads: every literal handed to the reader, `"a.b"` or a
    /// `ConfigKey("services.\(name).url")`, an interpolation standing for one segment (`*`).
    static func keysRead(in source: String) throws -> Set<String> {
        let literal = try Regex(
            #"(?:forKey:\s*(?:ConfigKey\()?|reader\.(?:integer|boolean|decimal)\(\s*)"([a-z][A-Za-z0-9]*(?:\.(?:[A-Za-z0-9]+|\\\([^)]*\)))+)""#
        )
        return Set(
            source.matches(of: literal).compactMap { match in
                (match.output[1].substring).map { String($0).replacing(#/\\\([^)]*\)/#, with: "*") }
            })
    }

    /// The keys the document's tables list (first column, each backticked key; `<name>`
    /// standing for one segment).
    static func keysDocumented() throws -> Set<String> {
        let document = try String(
            contentsOf: root.appendingPathComponent("docs/CONFIGURATION.md"), encoding: .utf8)
        var keys: Set<String> = []
        for line in document.split(separator: "\n") where line.hasPrefix("| `") {
            let first = line.dropFirst(2).prefix { $0 != "|" }
            for match in first.matches(of: #/`([^`]+)`/#) {
                keys.insert(String(match.output.1).replacing(#/<[a-z]+>/#, with: "*"))
            }
        }
        return keys
    }

    @Test func everyKeyReadIsDocumentedAndEveryDocumentedKeyIsRead() throws {
        var read: Set<String> = []
        for file in try Self.settingsFiles() {
            let keys = try Self.keysRead(in: String(contentsOf: file, encoding: .utf8))
            #expect(!keys.isEmpty, "\(file.lastPathComponent) reads no key: is it still where this test looks?")
            read.formUnion(keys)
        }
        let documented = try Self.keysDocumented()
        #expect(read.subtracting(documented).sorted() == [], "read but not in docs/CONFIGURATION.md")
        #expect(documented.subtracting(read).sorted() == [], "in docs/CONFIGURATION.md but read by no settings type")
    }

    @Test func theKeyReaderFindsLiteralsAndInterpolatedSegments() throws {
        let source = #"""
            let a = reader.string(forKey: "media.s3.bucket")
            let b = try reader.integer("feed.map.rebuildSeconds", default: 5, in: 1...3600)
            let c = reader.string(forKey: ConfigKey("services.\(service.rawValue).url"), default: "x")
            let d = try reader.integer(
                "ratelimit.\(rateClass.rawValue).limit", default: 1, in: 1...9)
            // "not.a.key" in a comment, and "Not.AKey" in a string
            """#
        #expect(
            try Self.keysRead(in: source)
                == ["media.s3.bucket", "feed.map.rebuildSeconds", "services.*.url", "ratelimit.*.limit"])
    }
}
