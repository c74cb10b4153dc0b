import Configuration
import Contracts
import Foundation
import ServiceHTTP

/// What lets a notification's deep link (`https://<api host>/streaks/…`) open the app rather
/// than the browser: Apple's `apple-app-site-association` (universal links) and Android's
/// `assetlinks.json` (app links), made from configuration. Keys:
/// - `links.apple.apps`: the iOS apps, `TEAMID.bundle.id`, comma-separated.
/// - `links.android.package` and `links.android.fingerprints` (the signing
///   certificates' SHA-256 fingerprints, `AB:CD:…`, comma-separated): the Android app.
/// - `links.paths`: the paths the apps open, comma-separated (`*` matches within a segment
///   and across the rest); by default every notification type's link, its `{…}` as `*`.
/// A platform not configured has no document (404).
struct AppLinks: Sendable, Equatable {
    var appleAppIDs: [String]
    var androidPackage: String?
    var androidFingerprints: [String]
    var paths: [String]

    init(
        appleAppIDs: [String] = [], androidPackage: String? = nil, androidFingerprints: [String] = [],
        paths: [String]? = nil
    ) {
        self.appleAppIDs = appleAppIDs
        self.androidPackage = androidPackage
        self.androidFingerprints = androidFingerprints
        self.paths = paths ?? Self.notificationPaths
    }

    init(reader: ConfigReader) throws {
        func list(_ text: String?) -> [String]? {
            text.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty } }
        }
        let fingerprints = list(reader.string(forKey: "links.android.fingerprints")) ?? []
        let package = reader.string(forKey: "links.android.package")
        guard (package == nil) == fingerprints.isEmpty else {
            throw ConfigurationError("set both links.android.package and links.android.fingerprints, or neither")
        }
        let paths = list(reader.string(forKey: "links.paths"))
        if let bad = paths?.first(where: { !$0.hasPrefix("/") }) {
            throw ConfigurationError("links.paths: \(bad) does not start with /")
        }
        self.init(
            appleAppIDs: list(reader.string(forKey: "links.apple.apps")) ?? [], androidPackage: package,
            androidFingerprints: fingerprints,
            paths: paths)
    }

    /// Every notification type's link, `{…}` segments as `*`, each once, sorted.
    static var notificationPaths: [String] {
        let links = NotificationCatalog.kinds.compactMap(\.link).map { link in
            link.split(separator: "/", omittingEmptySubsequences: false)
                .map { $0.hasPrefix("{") && $0.hasSuffix("}") ? "*" : String($0) }
                .joined(separator: "/")
        }
        return Set(links).sorted()
    }

    /// `apple-app-site-association`, or nil without iOS apps.
    func appleDocument() throws -> Data? {
        guard !appleAppIDs.isEmpty else { return nil }
        struct Document: Encodable {
            struct Links: Encodable { var details: [Detail] }
            struct Detail: Encodable {
                var appIDs: [String]
                var components: [[String: String]]
            }
            var applinks: Links
        }
        let detail = Document.Detail(appIDs: appleAppIDs, components: paths.map { ["/": $0] })
        return try JSONCoding.sharedEncoder.encode(Document(applinks: .init(details: [detail])))
    }

    /// `assetlinks.json`, or nil without an Android app.
    func androidDocument() throws -> Data? {
        guard let androidPackage else { return nil }
        struct Statement: Encodable {
            struct Target: Encodable {
                var namespace = "android_app"
                var package_name: String
                var sha256_cert_fingerprints: [String]
            }
            var relation = ["delegate_permission/common.handle_all_urls"]
            var target: Target
        }
        return try JSONCoding.sharedEncoder.encode([
            Statement(target: .init(package_name: androidPackage, sha256_cert_fingerprints: androidFingerprints))
        ])
    }
}
