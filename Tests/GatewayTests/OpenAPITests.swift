import Configuration
import Foundation
import Hummingbird
import ServiceHTTP
import TestSupport
import Testing
import Yams

@testable import AlertsService
@testable import AuthService
@testable import FeedService
@testable import Gateway
@testable import MediaService
@testable import ModerationService
@testable import StreakService

/// The public API description and the code must agree: every public route is documented,
/// every documented operation exists, and the gateway sends it to the service that has it.
@Suite struct OpenAPITests {
    /// The public routes each executable really serves, as `"GET /v1/me"`.
    func servedRoutes(in directory: TestDataDirectory) async throws -> [ServiceName: Set<String>] {
        func runtime(_ name: ServiceName) throws -> ServiceRuntime {
            try ServiceRuntime(name: name, reader: directory.reader())
        }
        /// `(method, path)` of every route of a router, paths normalized.
        func routes(_ parts: ServiceParts<some ServiceRequestContextProtocol>) -> [(method: String, path: String)] {
            parts.router.routes.map { ($0.method.rawValue, Self.normalized($0.path.description)) }
        }
        let reader = directory.reader()
        let routers: [ServiceName: [(method: String, path: String)]] = [
            // Apple sign-in, the RevenueCat webhook and sign-in codes are served only when configured.
            .auth: routes(
                try await AuthService.buildRouter(
                    runtime: runtime(.auth),
                    reader: directory.reader([
                        "auth.apple.bundleIds": "com.example.app", "auth.revenuecat.webhookSecret": "secret",
                        "auth.email.signInCodes": "true",
                    ]))),
            .media: routes(try await MediaService.buildRouter(runtime: runtime(.media), reader: reader)),
            .feed: routes(try await FeedService.buildRouter(runtime: runtime(.feed), reader: reader)),
            .streak: routes(try await StreakService.buildRouter(runtime: runtime(.streak), reader: reader)),
            .alerts: routes(try await AlertsService.buildRouter(runtime: runtime(.alerts), reader: reader)),
            .moderation: routes(try await ModerationService.buildRouter(runtime: runtime(.moderation), reader: reader)),
            .gateway: routes(
                try Gateway.buildRouter(runtime: runtime(.gateway), settings: GatewaySettings(reader: reader))),
        ]
        var served: [ServiceName: Set<String>] = [:]
        for (name, list) in routers {
            served[name] = Set(
                list.compactMap { route -> String? in
                    let isPublic =
                        name == .gateway
                        ? !route.path.hasSuffix("/**")  // the catch-alls forward; the rest the gateway serves
                        : route.path.hasPrefix("/v1/") || route.path.hasPrefix("/.well-known/")
                            || RouteTable.unversionedPaths.contains(route.path)
                    return isPublic ? "\(route.method) \(route.path)" : nil
                })
        }
        return served
    }

    /// `/v1/posts/:id` and `/v1/posts/{id}` both become `/v1/posts/{id}`.
    static func normalized(_ path: String) -> String {
        "/"
            + path.split(separator: "/").map { segment in
                segment.hasPrefix(":") ? "{\(segment.dropFirst())}" : String(segment)
            }.joined(separator: "/")
    }

    @Test func everyPublicRouteIsDocumentedAndEveryDocumentedOperationExists() async throws {
        try await withTestDataDirectory { directory in
            let document = try OpenAPIDocument.load()
            let served = try await servedRoutes(in: directory)
            let all = served.values.reduce(into: Set<String>()) { $0.formUnion($1) }
            let undocumented = all.subtracting(document.operations)
            let missing = document.operations.subtracting(all)
            #expect(undocumented.isEmpty, "served but not in openapi.yaml: \(undocumented.sorted())")
            #expect(missing.isEmpty, "in openapi.yaml but not served: \(missing.sorted())")
        }
    }

    @Test func theGatewaySendsEveryDocumentedOperationToTheServiceThatServesIt() async throws {
        try await withTestDataDirectory { directory in
            let document = try OpenAPIDocument.load()
            let served = try await servedRoutes(in: directory)
            for operation in document.operations {
                let parts = operation.split(separator: " ")
                let (method, path) = (HTTPRequest.Method(rawValue: String(parts[0]))!, String(parts[1]))
                if RouteTable.gatewayPaths.contains(path) {
                    #expect(served[.gateway]?.contains(operation) == true, "\(operation)")
                    continue
                }
                let concrete = path.replacingOccurrences(of: "{", with: "x").replacingOccurrences(of: "}", with: "")
                let route = try #require(RouteTable.route(path: concrete, method: method), "\(operation) is not routed")
                #expect(served[route.service]?.contains(operation) == true, "\(operation) goes to \(route.service)")
            }
        }
    }

    @Test func theDocumentIsOfTheReleaseTheHealthRoutesName() throws {
        #expect(try OpenAPIDocument.load().version == PinholeRelease.version)
    }

    @Test func theDocumentedErrorCodesAreExactlyTheOnesInContracts() throws {
        let document = try OpenAPIDocument.load()
        let schema = try #require(document.resolve("#/components/schemas/ErrorCode"))
        let documented = (schema["enum"] as? [String]) ?? []
        #expect(documented == ErrorCode.allCases.map(\.rawValue))
    }

    @Test func theDocumentedNotificationTypesAreExactlyTheOnesInContracts() throws {
        let document = try OpenAPIDocument.load()
        let schema = try #require(document.resolve("#/components/schemas/Notification"))
        let type = (schema["properties"] as? [String: Any])?["type"] as? [String: Any]
        #expect((type?["enum"] as? [String]) == NotificationType.allCases.map(\.rawValue))
    }

    /// A preference change names the types a user sets: those no other type follows; the
    /// critical ones only as `true`.
    @Test func theDocumentedPushPreferencesAreTheOnesAUserSets() throws {
        let document = try OpenAPIDocument.load()
        let schema = try #require(document.resolve("#/components/schemas/PushPreferenceChange"))
        let properties = try #require(schema["properties"] as? [String: [String: Any]])
        let settable = NotificationType.allCases.filter { NotificationCatalog.kind(of: $0).governedBy == nil }
        #expect(Set(properties.keys) == Set(settable.map(\.rawValue)))
        for type in settable {
            let critical = NotificationCatalog.kind(of: type).critical
            #expect((properties[type.rawValue]?["const"] as? Bool) == (critical ? true : nil), "\(type)")
        }
        #expect((schema["additionalProperties"] as? Bool) == false)
    }

    @Test func theSchemaCheckerCatchesWrongBodies() throws {
        let document = try OpenAPIDocument.load()
        let good = Data(
            #"{"id":"u","email":"a@b.c","displayName":"a","createdAt":"2026-11-21T10:00:00.000Z","roles":[]}"#.utf8)
        #expect(document.check(method: "GET", path: "/v1/me", status: 200, body: good).isEmpty)
        let missing = Data(#"{"id":"u","email":"a@b.c","createdAt":"2026-11-21T10:00:00Z"}"#.utf8)
        #expect(!document.check(method: "GET", path: "/v1/me", status: 200, body: missing).isEmpty)
        let extra = Data(
            #"{"id":"u","email":"a@b.c","displayName":"a","createdAt":"2026-11-21T10:00:00Z","roles":[],"secret":1}"#
                .utf8)
        #expect(!document.check(method: "GET", path: "/v1/me", status: 200, body: extra).isEmpty)
        #expect(!document.check(method: "GET", path: "/v1/me", status: 418, body: good).isEmpty)
        let badCode = Data(#"{"error":{"code":"NOPE","message":"x"}}"#.utf8)
        #expect(!document.check(method: "GET", path: "/v1/me", status: 401, body: badCode).isEmpty)
    }
}
