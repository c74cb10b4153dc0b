import Configuration
import Foundation
import Testing

@testable import ServiceHTTP

@Suite struct ConfigurationTests {
    @Test func defaultsFollowTheExecutable() throws {
        let settings = try ServiceSettings(name: .feed, reader: .fixed([:]))
        #expect(settings.port == 8103)
        #expect(settings.host == "127.0.0.1")
        #expect(settings.url(of: .auth).absoluteString == "https://127.0.0.1:8101")
        #expect(settings.pki.certificate.lastPathComponent == "feed.crt")
        #expect(settings.dataDirectory.lastPathComponent == ".pinhole")
    }

    @Test func flagsEnvironmentAndDefaultsLayerInThatOrder() async throws {
        let reader = try await ConfigReader.pinhole(
            arguments: ["feed", "--http-port", "9001"],
            environment: ["HTTP_PORT": "9002", "HTTP_HOST": "0.0.0.0", "SERVICES_AUTH_URL": "https://auth:9443"],
            environmentFile: nil)
        let settings = try ServiceSettings(name: .feed, reader: reader)
        #expect(settings.port == 9001)
        #expect(settings.host == "0.0.0.0")
        #expect(settings.url(of: .auth).absoluteString == "https://auth:9443")
    }

    @Test(arguments: [["http.port": "70000"], ["log.level": "loud"], ["services.media.url": "http://plain:1"]])
    func wrongValuesStopTheBoot(_ values: [String: String]) {
        #expect(throws: ConfigurationError.self) { try ServiceSettings(name: .media, reader: .fixed(values)) }
    }

    @Test func keysBecomeFlags() {
        #expect(ConfigKeys.flag("http.port", "1") == ["--http-port", "1"])
        #expect(ConfigKeys.flag("auth.accessTokenTtlSeconds", "60") == ["--auth-access-token-ttl-seconds", "60"])
    }

    @Test func secretsAreRecognised() {
        #expect(ConfigKeys.isSecret("metrics.token"))
        #expect(ConfigKeys.isSecret("revenuecat.webhookSecret"))
        #expect(!ConfigKeys.isSecret("auth.accessTokenTtlSeconds"))
        #expect(!ConfigKeys.isSecret("http.port"))
    }
}

@Suite struct ConfigurationValueTests {
    @Test(arguments: [["client.connectTimeoutMs": "soon"], ["client.connectTimeoutMs": "-5"], ["http.port": "8080x"]])
    func malformedNumbersAreRefusedNotReplacedByDefaults(_ values: [String: String]) {
        #expect(throws: ConfigurationError.self) { try ServiceSettings(name: .feed, reader: .fixed(values)) }
    }

    @Test func environmentNamesFollowTheKey() {
        #expect(ConfigKeys.environmentName("http.port") == "HTTP_PORT")
        #expect(ConfigKeys.environmentName("auth.accessTokenTtlSeconds") == "AUTH_ACCESS_TOKEN_TTL_SECONDS")
        #expect(ConfigKeys.environmentName("services.auth.url") == "SERVICES_AUTH_URL")
    }
}
