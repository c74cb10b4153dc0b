// swift-tools-version:6.1
import PackageDescription

// Every target is compiled in Swift 6 language mode with strict concurrency checking.
let strictSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

// Tests import what they use but need not name every module that declares a member.
let testSettings: [SwiftSetting] = [.enableUpcomingFeature("ExistentialAny")]

// MARK: - Products of the dependencies, by name

extension Target.Dependency {
    static var asn1: Self { .product(name: "SwiftASN1", package: "swift-asn1") }
    static var asyncHTTPClient: Self { .product(name: "AsyncHTTPClient", package: "async-http-client") }
    static var argumentParser: Self { .product(name: "ArgumentParser", package: "swift-argument-parser") }
    static var configuration: Self { .product(name: "Configuration", package: "swift-configuration") }
    static var crypto: Self { .product(name: "Crypto", package: "swift-crypto") }
    static var cryptoExtras: Self { .product(name: "CryptoExtras", package: "swift-crypto") }
    static var grdb: Self { .product(name: "GRDB", package: "GRDB.swift") }
    static var httpTypes: Self { .product(name: "HTTPTypes", package: "swift-http-types") }
    static var hummingbird: Self { .product(name: "Hummingbird", package: "hummingbird") }
    static var hummingbirdCore: Self { .product(name: "HummingbirdCore", package: "hummingbird") }
    static var hummingbirdHTTP2: Self { .product(name: "HummingbirdHTTP2", package: "hummingbird") }
    static var hummingbirdTesting: Self { .product(name: "HummingbirdTesting", package: "hummingbird") }
    static var hummingbirdWebSocket: Self { .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket") }
    static var hummingbirdWSClient: Self { .product(name: "HummingbirdWSClient", package: "hummingbird-websocket") }
    static var jwtKit: Self { .product(name: "JWTKit", package: "jwt-kit") }
    static var logging: Self { .product(name: "Logging", package: "swift-log") }
    static var metrics: Self { .product(name: "Metrics", package: "swift-metrics") }
    static var mustache: Self { .product(name: "Mustache", package: "swift-mustache") }
    static var openAPIRuntime: Self { .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime") }
    static var prometheus: Self { .product(name: "Prometheus", package: "swift-prometheus") }
    static var propertyBased: Self { .product(name: "PropertyBased", package: "swift-property-based") }
    static var serviceLifecycle: Self { .product(name: "ServiceLifecycle", package: "swift-service-lifecycle") }
    static var x509: Self { .product(name: "X509", package: "swift-certificates") }
    static var yams: Self { .product(name: "Yams", package: "Yams") }

    /// A module of swift-nio (`NIOCore`, `NIOPosix`, …).
    static func nio(_ module: String) -> Self { .product(name: module, package: "swift-nio") }
    /// A module of swift-nio-http2 (`NIOHTTP2`, `NIOHPACK`).
    static func nioHTTP2(_ module: String) -> Self { .product(name: module, package: "swift-nio-http2") }
    /// A module of swift-nio-extras (the HTTP types codecs).
    static func nioExtras(_ module: String) -> Self { .product(name: module, package: "swift-nio-extras") }
    static var nioSSL: Self { .product(name: "NIOSSL", package: "swift-nio-ssl") }
}

// MARK: - Target shapes that repeat

/// One of the six services: `Services/<Name>`, built on both layers of the kit.
func service(_ name: String, _ dependencies: [Target.Dependency] = []) -> Target {
    .executableTarget(
        name: "\(name)Service", dependencies: ["Contracts", "ServiceHTTP", "ServiceStore"] + dependencies,
        path: "Services/\(name)", swiftSettings: strictSettings)
}

/// The tests of one target, `Tests/<name>Tests`, with the test kit and Hummingbird's test client.
func tests(_ name: String, _ dependencies: [Target.Dependency] = [], resources: [Resource]? = nil) -> Target {
    .testTarget(
        name: "\(name)Tests", dependencies: ["TestSupport", .hummingbirdTesting] + dependencies,
        resources: resources, swiftSettings: testSettings)
}

/// A benchmark: `Benchmarks/<name>`, an executable run only when asked (scripts/bench-*).
func benchmark(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: dependencies, path: "Benchmarks/\(name)", swiftSettings: testSettings)
}

let package = Package(
    name: "pinhole",
    platforms: [.macOS(.v15), .iOS(.v17)],
    products: [
        .executable(name: "auth", targets: ["AuthService"]),
        .executable(name: "media", targets: ["MediaService"]),
        .executable(name: "feed", targets: ["FeedService"]),
        .executable(name: "streak", targets: ["StreakService"]),
        .executable(name: "alerts", targets: ["AlertsService"]),
        .executable(name: "moderation", targets: ["ModerationService"]),
        .executable(name: "gateway", targets: ["Gateway"]),
        .executable(name: "pinhole", targets: ["PinholeCLI"]),
        .library(name: "PinholeClient", targets: ["PinholeClient"]),
        .executable(name: "token-bench", targets: ["TokenBench"]),
        .executable(name: "notify-bench", targets: ["NotifyBench"]),
        .executable(name: "streak-bench", targets: ["StreakBench"]),
        .executable(name: "cluster-bench", targets: ["ClusterBench"]),
        .executable(name: "row-bench", targets: ["RowBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(
            url: "https://github.com/apple/swift-configuration.git", from: "1.4.0",
            traits: [.defaults, "CommandLineArguments"]),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        .package(url: "https://github.com/apple/swift-service-context.git", from: "1.5.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-http2.git", from: "1.46.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        // OTLP over HTTP only: the gRPC exporter's dependencies are not needed.
        .package(url: "https://github.com/swift-otel/swift-otel.git", from: "1.6.0", traits: ["OTLPHTTP"]),
        .package(url: "https://github.com/apple/swift-openapi-generator.git", from: "1.14.3"),
        .package(url: "https://github.com/apple/swift-openapi-runtime.git", from: "1.13.4"),
        .package(url: "https://github.com/apple/swift-openapi-urlsession.git", from: "1.4.0"),
        .package(url: "https://github.com/swift-server/swift-openapi-async-http-client.git", from: "1.5.0"),
    ],
    targets: [
        // MARK: - The Swift client apps use

        // Generated at build time from gateway/openapi.yaml (a symbolic link in the target's
        // folder), with a hand-written layer for tokens, retries and tus uploads.
        .target(
            name: "PinholeClient",
            dependencies: [
                .openAPIRuntime, .httpTypes,
                .product(name: "OpenAPIURLSession", package: "swift-openapi-urlsession"),
            ],
            path: "Client/PinholeClient",
            plugins: [.plugin(name: "OpenAPIGenerator", package: "swift-openapi-generator")]
        ),

        // MARK: - Shared

        .target(name: "Contracts", path: "Shared/Contracts", swiftSettings: strictSettings),
        // The kit's HTTP layer: server bootstrap, mutual TLS, configuration, routes, errors,
        // identity, the internal client, observability, clock and entropy. No database: the
        // gateway is built on this alone.
        .target(
            name: "ServiceHTTP",
            dependencies: [
                "Contracts", .hummingbird, .hummingbirdCore, .hummingbirdHTTP2, .httpTypes, .asyncHTTPClient,
                .jwtKit, .crypto, .x509, .asn1, .configuration, .logging, .metrics, .prometheus,
                .serviceLifecycle, .nio("NIOCore"), .nio("NIOPosix"), .nio("NIOTLS"), .nioSSL,
                .nioHTTP2("NIOHTTP2"), .nioHTTP2("NIOHPACK"), .nioExtras("NIOHTTPTypesHTTP2"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
                .product(name: "Instrumentation", package: "swift-distributed-tracing"),
                .product(name: "ServiceContextModule", package: "swift-service-context"),
                .product(name: "OTel", package: "swift-otel"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Shared/ServiceHTTP",
            swiftSettings: strictSettings
        ),
        // The kit's store layer, on the HTTP layer: the SQLite base (GRDB), records, the outbox
        // and inbox, durable jobs, idempotent answers and the mirrors of others' data.
        .target(
            name: "ServiceStore",
            dependencies: [
                "Contracts", "ServiceHTTP", .grdb, .hummingbird, .configuration, .crypto, .logging, .metrics,
                .prometheus, .serviceLifecycle, .asyncHTTPClient, .httpTypes, .nio("NIOCore"),
                .product(name: "Tracing", package: "swift-distributed-tracing"),
            ],
            path: "Shared/ServiceStore",
            swiftSettings: strictSettings
        ),
        // Feed's map clusters (Supercluster's algorithm): a module of its own so that
        // cluster-bench times the same code as feed, in a process of its own.
        .target(name: "MapClustering", path: "Shared/MapClustering", swiftSettings: strictSettings),
        .systemLibrary(
            name: "CArgon2", path: "Shared/CArgon2", pkgConfig: "libargon2", providers: [.apt(["libargon2-dev"])]),
        // glibc's malloc.h (malloc_trim), which Swift's Glibc module leaves out.
        .systemLibrary(name: "CMalloc", path: "Shared/CMalloc"),
        .systemLibrary(name: "CVips", path: "Shared/CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        // libcurl's SMTP client (auth's mail): STARTTLS, implicit TLS and AUTH, well kept.
        .systemLibrary(
            name: "CCurl", path: "Shared/CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),

        // MARK: - Executables

        service("Auth", ["CArgon2", "CCurl", .jwtKit, .crypto, .x509, .asn1, .mustache, .nio("NIOPosix")]),
        service("Media", ["CVips", .crypto, .asyncHTTPClient]),
        service("Feed", ["MapClustering", .metrics]),
        service("Streak"),
        service(
            "Alerts",
            [.asyncHTTPClient, .jwtKit, .nioSSL, .nio("NIOCore"), .nio("NIOHTTP1"), .nioHTTP2("NIOHTTP2")]),
        service("Moderation", [.mustache, .crypto]),
        .executableTarget(
            name: "Gateway",
            dependencies: [
                "Contracts", "ServiceHTTP", "CMalloc", .hummingbird, .hummingbirdCore, .hummingbirdHTTP2,
                .hummingbirdWebSocket, .httpTypes, .asyncHTTPClient, .prometheus, .configuration, .logging,
                .serviceLifecycle, .nio("NIOCore"), .nio("NIOHTTP1"), .nio("NIOPosix"), .nio("NIOTLS"),
                .nio("NIOWebSocket"), .nioSSL, .nioHTTP2("NIOHTTP2"), .nioExtras("NIOHTTPTypesHTTP2"),
                .nioExtras("NIOHTTPTypesHTTP1"), .nioExtras("NIOHTTPTypes"),
            ],
            path: "gateway",
            resources: [.copy("openapi.yaml")],
            swiftSettings: strictSettings
        ),
        .executableTarget(
            name: "PinholeCLI",
            dependencies: [
                "Contracts", "ServiceHTTP", "ServiceStore", .argumentParser, .crypto, .grdb, .asyncHTTPClient,
                .nio("NIOCore"), .nio("NIOHTTP1"), .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "cli",
            swiftSettings: strictSettings
        ),

        // MARK: - Benchmarks (not tests: scripts/bench-* run them)

        benchmark("TokenBench", ["ServiceHTTP", .jwtKit]),
        // Drives a release stack and the fake push providers of TestSupport.
        benchmark(
            "NotifyBench",
            [
                "ServiceHTTP", "Contracts", "TestSupport", .asyncHTTPClient, .nio("NIOCore"), .nio("NIOPosix"),
                .nio("NIOHTTP1"), .nio("NIOWebSocket"), .nioSSL,
            ]),
        // Seeds a million streaks into a release streak's store and times its deadline job.
        benchmark("StreakBench", ["ServiceHTTP", "ServiceStore", "TestSupport", .grdb]),
        // Times feed's cluster index in a process of its own, as pysupercluster is timed beside it.
        benchmark("ClusterBench", ["MapClustering", .grdb]),
        // Decodes rows the ways a record can find its columns, in turns in one process.
        benchmark("RowBench", ["ServiceStore", .grdb]),

        // MARK: - Tests

        .target(
            name: "TestSupport",
            dependencies: [
                "ServiceHTTP", "ServiceStore", "Contracts", .hummingbirdTesting, .hummingbirdHTTP2, .httpTypes,
                .asyncHTTPClient, .jwtKit, .crypto, .cryptoExtras, .configuration, .yams, .grdb, .hummingbirdWSClient,
                .x509, .asn1, .nio("NIOCore"), .nio("NIOHTTP1"), .nio("NIOPosix"), .nio("NIOConcurrencyHelpers"),
                .nio("NIOWebSocket"), .nioSSL, .nioHTTP2("NIOHTTP2"), .nioHTTP2("NIOHPACK"),
            ],
            path: "Tests/TestSupport",
            swiftSettings: testSettings
        ),
        tests(
            "ServiceHTTP",
            [
                "ServiceHTTP", .httpTypes, .serviceLifecycle, .nio("NIOEmbedded"), .nioHTTP2("NIOHTTP2"), .jwtKit,
                .x509, .asyncHTTPClient,
                .propertyBased,
            ]),
        tests("ServiceStore", ["ServiceStore", .grdb, .serviceLifecycle, .propertyBased, .asyncHTTPClient]),
        tests("AuthService", ["AuthService", .grdb, .x509, .asn1, .crypto]),
        tests("MediaService", ["MediaService", .grdb, .crypto]),
        tests("FeedService", ["FeedService", "MapClustering", .grdb, .propertyBased]),
        tests("StreakService", ["StreakService", .grdb, .propertyBased]),
        tests("AlertsService", ["AlertsService", .grdb, .crypto, .nio("NIOEmbedded"), .nioHTTP2("NIOHTTP2")]),
        tests("ModerationService", ["ModerationService", .grdb]),
        tests(
            "Gateway",
            [
                "Gateway", "AuthService", "MediaService", "FeedService", "StreakService", "AlertsService",
                "ModerationService", .asyncHTTPClient, .crypto, .yams, .nio("NIOEmbedded"), .nioHTTP2("NIOHTTP2"),
                .hummingbirdWSClient, .propertyBased,
            ]),
        tests(
            "Contract",
            [
                "AuthService", "MediaService", "FeedService", "StreakService", "AlertsService", "ModerationService",
                .asyncHTTPClient, .grdb,
            ],
            resources: [.copy("Interactions")]),
        tests("PinholeCLI", ["PinholeCLI", "AuthService", .yams]),
        .testTarget(
            name: "ClientTests",
            dependencies: ["PinholeClient", .openAPIRuntime, .httpTypes, .yams],
            swiftSettings: testSettings
        ),
        tests(
            "Stack",
            [
                "ServiceHTTP", "Contracts", "PinholeClient", .crypto, .asyncHTTPClient, .grdb, .nio("NIOHTTP1"),
                .hummingbirdWSClient,
                .product(name: "OpenAPIAsyncHTTPClient", package: "swift-openapi-async-http-client"),
            ]),
    ]
)
