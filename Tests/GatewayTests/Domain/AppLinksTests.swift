import Foundation
import ServiceHTTP
import Testing

@testable import Gateway

/// The documents that let a notification's link open the app (SkateHubba's universal links).
@Suite struct AppLinksTests {
    @Test func theDocumentsNameTheAppsAndEveryNotificationLink() throws {
        let links = try AppLinks(
            reader: .fixed([
                "links.apple.apps": "ABCDE12345.com.skatehubba.app, ABCDE12345.com.skatehubba.beta",
                "links.android.package": "com.skatehubba.app",
                "links.android.fingerprints": "AA:BB:CC",
            ]))
        // By default, every notification type's link, its ids as `*`.
        #expect(links.paths.contains("/challenge/*/vote") && links.paths.contains("/streaks/*"))
        #expect(links.paths.contains("/camera") && !links.paths.contains { $0.contains("{") })

        let apple = try #require(try links.appleDocument())
        let association = try #require(try JSONSerialization.jsonObject(with: apple) as? [String: Any])
        let details = try #require((association["applinks"] as? [String: Any])?["details"] as? [[String: Any]])
        #expect(
            details.first?["appIDs"] as? [String] == [
                "ABCDE12345.com.skatehubba.app", "ABCDE12345.com.skatehubba.beta",
            ])
        let components = try #require(details.first?["components"] as? [[String: String]])
        #expect(components.map { $0["/"] } == links.paths)

        let android = try #require(try links.androidDocument())
        let statements = try #require(try JSONSerialization.jsonObject(with: android) as? [[String: Any]])
        #expect(statements.first?["relation"] as? [String] == ["delegate_permission/common.handle_all_urls"])
        let target = try #require(statements.first?["target"] as? [String: Any])
        #expect(target["package_name"] as? String == "com.skatehubba.app")
        #expect(target["sha256_cert_fingerprints"] as? [String] == ["AA:BB:CC"])
    }

    @Test func pathsCanBeSetAndHalfAnAndroidSettingStopsTheBoot() throws {
        let links = try AppLinks(reader: .fixed(["links.apple.apps": "T.app", "links.paths": "/spots/*, /u/*"]))
        #expect(links.paths == ["/spots/*", "/u/*"])
        #expect(try links.androidDocument() == nil)
        #expect(try AppLinks(reader: .fixed([:])).appleDocument() == nil)
        #expect(throws: ConfigurationError.self) { try AppLinks(reader: .fixed(["links.android.package": "a.b"])) }
        #expect(throws: ConfigurationError.self) { try AppLinks(reader: .fixed(["links.paths": "spots/*"])) }
    }
}
